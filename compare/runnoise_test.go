package compare

import (
	"math"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/bench"
)

// A candidate whose second half of rounds ran under a burst of load the
// baseline's rounds escaped: every round is slower than every baseline
// round, so the rank test is sure, but the candidate moved by more between
// the halves of its own rounds than it differs from the baseline.
var (
	loadedBase = []float64{100, 99, 101, 100, 98, 102, 100, 99, 101, 100}
	loadedCand = []float64{104, 103, 105, 104, 103, 126, 128, 125, 127, 126}
)

func TestRunNoiseBoundsVerdict(t *testing.T) {
	cmp, err := Compare([]*bench.Result{res("Checksum", "base", "ns/op", loadedBase...), res("Checksum", "new", "ns/op", loadedCand...)}, Options{Base: "base"})
	if err != nil {
		t.Fatal(err)
	}
	c := cmp.Rows[0].Candidates[0]
	if !c.Significant {
		t.Fatalf("the rank test should be significant here (p=%.3g alpha=%.3g)", c.P, c.Alpha)
	}
	if c.Verdict != Noisy {
		t.Errorf("verdict %q, want noisy: a %+.1f%% change within the run's own noise", c.Verdict, c.DeltaPct)
	}
	if c.RunNoisePct == nil {
		t.Fatal("no run noise recorded")
	}
	// The candidate's halves: medians 104 and 126.
	if want := 100 * (126.0/104 - 1); math.Abs(*c.RunNoisePct-want) > 0.01 {
		t.Errorf("run noise %.2f%%, want %.2f%%", *c.RunNoisePct, want)
	}
	if !strings.Contains(c.Note, RunNoiseNote) {
		t.Errorf("note %q lacks %q", c.Note, RunNoiseNote)
	}
	if len(cmp.Warnings) != 1 || !strings.Contains(cmp.Warnings[0], "moved by up to 21.2%") || !strings.Contains(cmp.Warnings[0], "Checksum") {
		t.Errorf("warnings %q should say what noise the run saw", cmp.Warnings)
	}
	if cmp.Summary[0].Noisy != 1 || cmp.Summary[0].Worse != 0 {
		t.Errorf("summary %+v, want 1 noisy", cmp.Summary[0])
	}
}

func TestRunNoiseLetsClearChangesThrough(t *testing.T) {
	for _, tt := range []struct {
		name string
		cand []float64
		opts Options
		want Verdict
	}{
		// The same rounds as the loaded candidate, but a steady +15%.
		{"steady change", scale(loadedBase, 1.15), Options{}, Worse},
		// Far beyond the noise: the quickstart's Append.
		{"change beyond the noise", scale(loadedCand, 3), Options{}, Worse},
		// benchstat's method is reproduced as benchstat has it.
		{"benchstat", loadedCand, Options{Verdicts: VerdictOptions{Method: MethodBenchstat}}, Worse},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Base = "base"
			cmp, err := Compare([]*bench.Result{res("Checksum", "base", "ns/op", loadedBase...), res("Checksum", "new", "ns/op", tt.cand...)}, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			c := cmp.Rows[0].Candidates[0]
			if c.Verdict != tt.want {
				t.Errorf("verdict %q (%+.1f%%, run noise %v), want %q", c.Verdict, c.DeltaPct, c.RunNoisePct, tt.want)
			}
			if strings.Contains(c.Note, RunNoiseNote) || len(cmp.Warnings) != 0 {
				t.Errorf("note %q, warnings %q: nothing was within the noise", c.Note, cmp.Warnings)
			}
		})
	}
}

func TestHalvesSplit(t *testing.T) {
	for _, tt := range []struct {
		values []float64
		want   float64
	}{
		{[]float64{1, 2, 3}, 0},
		{[]float64{1, 0, 1, 1}, 0},
		{[]float64{10, 10, 20, 20}, math.Log(2)}, // first against second half
		{[]float64{10, 20, 10, 20}, math.Log(2)}, // odd against even rounds
		{[]float64{10, 10, 99, 10, 10}, 0},       // the middle one is left out, the medians ignore it
		{[]float64{100, 100, 100, 100, 100, 100}, 0},
	} {
		if got := halvesSplit(tt.values); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("halvesSplit(%v) = %v, want %v", tt.values, got, tt.want)
		}
	}
}
