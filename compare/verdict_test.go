package compare

import (
	"math"
	"testing"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/stats"
)

func res(name, variant, unit string, samples ...float64) *bench.Result {
	return &bench.Result{Benchmark: name, Unit: unit, Better: bench.DirectionOf(unit), Variant: variant, Samples: samples}
}

func summary(name, variant string, mean, err float64, n int) *bench.Result {
	return &bench.Result{Benchmark: name, Unit: "ops/s", Better: bench.HigherIsBetter, Variant: variant,
		Summary: &bench.Summary{Mean: mean, Error: err, Confidence: 0.999, N: n}}
}

func seq(base, step float64, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = base + step*float64(i%5) - 2*step
	}
	return v
}

func scale(v []float64, f float64) []float64 {
	out := make([]float64, len(v))
	for i := range v {
		out[i] = v[i] * f
	}
	return out
}

func TestVerdicts(t *testing.T) {
	base := seq(100, 0.5, 10)
	tests := []struct {
		name    string
		results []*bench.Result
		opts    Options
		test    string
		verdict Verdict
	}{
		{"slower", []*bench.Result{res("A", "base", "ns/op", base...), res("A", "new", "ns/op", scale(base, 1.05)...)},
			Options{}, TestMannWhitney, Worse},
		{"faster", []*bench.Result{res("A", "base", "ns/op", base...), res("A", "new", "ns/op", scale(base, 0.9)...)},
			Options{}, TestMannWhitney, Better},
		{"unchanged", []*bench.Result{res("A", "base", "ns/op", base...), res("A", "new", "ns/op", base...)},
			Options{}, TestMannWhitney, Same},
		{"too few samples", []*bench.Result{res("A", "base", "ns/op", 1, 2, 3), res("A", "new", "ns/op", 4, 5, 6)},
			Options{}, TestMannWhitney, Noisy},
		{"one more alloc", []*bench.Result{res("A", "base", "allocs/op", 3, 3, 3), res("A", "new", "allocs/op", 4, 4, 4)},
			Options{}, TestExact, Worse},
		{"same allocs", []*bench.Result{res("A", "base", "allocs/op", 3, 3), res("A", "new", "allocs/op", 3, 3)},
			Options{}, TestExact, Same},
		{"allocs benchstat", []*bench.Result{res("A", "base", "allocs/op", 3, 3, 3), res("A", "new", "allocs/op", 4, 4, 4)},
			Options{Verdicts: VerdictOptions{Method: MethodBenchstat}}, TestMannWhitney, Noisy},
		{"jmh summaries", []*bench.Result{summary("A", "base", 1000, 10, 10), summary("A", "new", 1100, 10, 10)},
			Options{}, TestWelch, Better},
		{"paired rounds", []*bench.Result{res("A", "base", "ns/op", 100, 110, 120, 130, 140, 150, 160, 170),
			res("A", "new", "ns/op", 102, 112.2, 122.4, 132.6, 142.8, 153, 163.2, 173.4)},
			Options{Verdicts: VerdictOptions{Paired: true}}, TestPairedT, Worse},
		{"drift unpaired", []*bench.Result{res("A", "base", "ns/op", 100, 110, 120, 130, 140, 150, 160, 170),
			res("A", "new", "ns/op", 102, 112.2, 122.4, 132.6, 142.8, 153, 163.2, 173.4)},
			Options{}, TestMannWhitney, Noisy},
		{"within learned noise", []*bench.Result{res("A", "base", "ns/op", base...), res("A", "new", "ns/op", scale(base, 1.05)...)},
			Options{Verdicts: VerdictOptions{History: func(*Row) (stats.Noise, bool) { return stats.Noise{ThresholdPct: 8}, true }}},
			TestMannWhitney, Same},
		{"unstable history", []*bench.Result{res("A", "base", "ns/op", base...), res("A", "new", "ns/op", scale(base, 1.05)...)},
			Options{Verdicts: VerdictOptions{History: func(*Row) (stats.Noise, bool) { return stats.Noise{ThresholdPct: 20, Unstable: true}, true }}},
			TestMannWhitney, Noisy},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Base = "base"
			cmp, err := Compare(tt.results, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			c := cmp.Rows[0].Candidates[0]
			if c.Test != tt.test || c.Verdict != tt.verdict {
				t.Errorf("got test %q verdict %q (p=%.3g alpha=%.3g mde=%.3g%%), want %q %q", c.Test, c.Verdict, c.P, c.Alpha, c.MDEPct, tt.test, tt.verdict)
			}
			if c.Significant != (c.P <= c.Alpha) {
				t.Errorf("Significant=%v with p=%v alpha=%v", c.Significant, c.P, c.Alpha)
			}
		})
	}
}

// TestFDR builds a suite of 20 unchanged benchmarks and one whose p-value
// passes 0.05 on its own but not the suite's false-discovery control.
func TestFDR(t *testing.T) {
	var results []*bench.Result
	for i := range 20 {
		name := string(rune('A' + i))
		results = append(results, res(name, "base", "ns/op", seq(100, 1, 10)...), res(name, "new", "ns/op", seq(100, 1, 10)...))
	}
	// Overlapping samples: p around 0.01, significant alone.
	results = append(results,
		res("Z", "base", "ns/op", 100, 101, 102, 103, 104, 105, 106, 107),
		res("Z", "new", "ns/op", 103, 104, 105, 106, 107, 108, 109, 110.5))
	for _, tt := range []struct {
		method  Method
		verdict Verdict
	}{{MethodBenchstat, Worse}, {MethodPerfbot, Same}} {
		cmp, err := Compare(results, Options{Base: "base", Verdicts: VerdictOptions{Method: tt.method, BootstrapIterations: 200}})
		if err != nil {
			t.Fatal(err)
		}
		z := cmp.Rows[len(cmp.Rows)-1].Candidates[0]
		if z.P > 0.05 {
			t.Fatalf("test data: p = %v, want < 0.05", z.P)
		}
		if z.Verdict != tt.verdict && !(tt.verdict == Same && z.Verdict == Noisy) {
			t.Errorf("%s: verdict %q (p=%.4f alpha=%.4f), want %q", tt.method, z.Verdict, z.P, z.Alpha, tt.verdict)
		}
		g := cmp.Geomean.Units[0].Candidates[0]
		if g.LoPct == nil || g.HiPct == nil || !(*g.LoPct <= g.DeltaPct && g.DeltaPct <= *g.HiPct) {
			t.Errorf("%s: geomean %v%% interval %v..%v", tt.method, g.DeltaPct, g.LoPct, g.HiPct)
		}
	}
}

func TestMDEReported(t *testing.T) {
	cmp, err := Compare([]*bench.Result{res("A", "base", "ns/op", 1, 2, 3), res("A", "new", "ns/op", 1, 2, 3)}, Options{Base: "base"})
	if err != nil {
		t.Fatal(err)
	}
	if m := cmp.Rows[0].Candidates[0].MDEPct; !math.IsInf(m, 1) {
		t.Errorf("3 samples a side: MDE %v, want +Inf", m)
	}
}

func TestDecided(t *testing.T) {
	tests := []struct {
		c    Candidate
		want bool
	}{
		{Candidate{Verdict: Worse, MDEPct: 9}, true},
		{Candidate{Verdict: Better}, true},
		{Candidate{Verdict: Same, MDEPct: 1.5}, true},
		{Candidate{Verdict: Same, MDEPct: 3}, false},
		{Candidate{Verdict: Same, MDEPct: math.Inf(1)}, false},
		{Candidate{Verdict: Noisy, MDEPct: 1}, false},
		// With an interval, the interval decides: it must lie within ±2%.
		{Candidate{Verdict: Same, MDEPct: 1, ChangeLoPct: ptr(-1.5), ChangeHiPct: ptr(1.9)}, true},
		{Candidate{Verdict: Same, MDEPct: 1, ChangeLoPct: ptr(0.5), ChangeHiPct: ptr(2.5)}, false},
		{Candidate{Verdict: Same, MDEPct: 9, ChangeLoPct: ptr(-2), ChangeHiPct: ptr(1)}, false},
		{Candidate{Verdict: Noisy, MDEPct: 9, ChangeLoPct: ptr(-1), ChangeHiPct: ptr(1)}, true},
	}
	for _, tt := range tests {
		if got := Decided(&tt.c, 2); got != tt.want {
			t.Errorf("Decided(%s, mde %v, interval %v %v) = %v, want %v", tt.c.Verdict, tt.c.MDEPct, tt.c.ChangeLoPct, tt.c.ChangeHiPct, got, tt.want)
		}
	}
}

func ptr(v float64) *float64 { return &v }

// TestChangeInterval: each test reports the change's interval, and a
// result that found no change is "same" only when its interval rules out
// changes of the noise floor (5%).
func TestChangeInterval(t *testing.T) {
	tight := []float64{100, 101, 99, 100.5, 99.5, 100.2, 99.8, 100.1, 99.9, 100.3}
	loose := []float64{100, 112, 91, 104, 95, 109, 99, 90, 111, 101}
	shifted := make([]float64, len(tight))
	for i, v := range tight {
		shifted[i] = v * 1.10
	}
	for _, tt := range []struct {
		name       string
		base, cand []float64
		lo, hi     float64 // the interval must contain [lo, hi]...
		within     float64 // ...and lie within ±within
		verdict    Verdict
	}{
		{"no change, tight", tight, tight, -0.1, 0.1, 1.5, Same},
		{"no change, loose", loose, loose, -3, 3, 15, Noisy},
		{"10% slower", tight, shifted, 9.5, 10.5, 12, Worse},
	} {
		cmp, err := Compare([]*bench.Result{res("A", "base", "ns/op", tt.base...), res("A", "new", "ns/op", tt.cand...)}, Options{Base: "base"})
		if err != nil {
			t.Fatal(err)
		}
		c := cmp.Rows[0].Candidates[0]
		if c.ChangeLoPct == nil || c.ChangeHiPct == nil {
			t.Fatalf("%s: no interval", tt.name)
		}
		lo, hi := *c.ChangeLoPct, *c.ChangeHiPct
		if lo > tt.lo || hi < tt.hi || lo < -tt.within || hi > tt.within {
			t.Errorf("%s: interval [%.2f, %.2f], want one containing [%v, %v] within ±%v", tt.name, lo, hi, tt.lo, tt.hi, tt.within)
		}
		if c.Verdict != tt.verdict {
			t.Errorf("%s: verdict %s, want %s (interval [%.2f, %.2f], MDE %.2f)", tt.name, c.Verdict, tt.verdict, lo, hi, c.MDEPct)
		}
	}
	// Three samples a side: no interval at 95%, and no verdict beyond
	// noisy.
	cmp, err := Compare([]*bench.Result{res("A", "base", "ns/op", 1, 2, 3), res("A", "new", "ns/op", 1, 2, 3)}, Options{Base: "base"})
	if err != nil {
		t.Fatal(err)
	}
	if c := cmp.Rows[0].Candidates[0]; c.ChangeLoPct != nil || c.Verdict != Noisy {
		t.Errorf("3 a side: interval %v, verdict %s; want none and noisy", c.ChangeLoPct, c.Verdict)
	}
}

// TestConstantEqualIsSame: zero against zero is no change, not noise.
func TestConstantEqualIsSame(t *testing.T) {
	var rs []*bench.Result
	for _, v := range []string{"base", "cand"} {
		for i := 0; i < 6; i++ {
			rs = append(rs, &bench.Result{Benchmark: "failed", Unit: "count", Samples: []float64{0}, Variant: v})
		}
	}
	cmp, err := Compare(rs, Options{Base: "base", Candidates: []string{"cand"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := cmp.Rows[0].Candidates[0].Verdict; got != Same {
		t.Errorf("verdict %s, want same", got)
	}
}
