package job

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/internal/finite"
	"github.com/perfbot/perfbot/runner"
)

// TestOutcomeJSON: an outcome goes through JSON whole, every cell's
// samples, rounds and summary included, which the comparison's own JSON
// leaves out.
func TestOutcomeJSON(t *testing.T) {
	var results []*bench.Result
	for i, v := range []string{"base", "patch"} {
		results = append(results,
			&bench.Result{Benchmark: "Work", Unit: "sec/op", Variant: v, Samples: []float64{1 + float64(i), 1.1 + float64(i), 0.9 + float64(i), 1.05 + float64(i), 0.95 + float64(i)}},
			&bench.Result{Benchmark: "Score", Unit: "ops/s", Variant: v, Summary: &bench.Summary{Mean: 100 + float64(i), Error: 2, Confidence: 0.999, N: 5}})
	}
	cmp, err := compare.Compare(results, compare.Options{Base: "base", Candidates: []string{"patch"}})
	if err != nil {
		t.Fatal(err)
	}
	in := &Outcome{Comparison: cmp, Results: results, Profiles: []runner.Profile{{Suite: "go", Variant: "base", Package: "x", Data: []byte{0, 1, 2}}}}
	data, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if o, err := DecodeOutcome(data); err != nil || len(o.Results) != len(results) || len(o.Profiles) != 1 {
		t.Errorf("DecodeOutcome of an outcome = %+v, %v; want its results and profile", o, err)
	}
	bare, err := finite.Marshal(cmp, false)
	if err != nil {
		t.Fatal(err)
	}
	if o, err := DecodeOutcome(bare); err != nil || o.Results != nil || len(o.Comparison.Rows) != len(cmp.Rows) || o.Comparison.Base != "base" {
		t.Errorf("DecodeOutcome of a bare comparison = %+v, %v; want the comparison alone", o, err)
	}
	if _, err := DecodeOutcome([]byte("not json")); err == nil {
		t.Error("DecodeOutcome of text that is not JSON: no error")
	}
	var out Outcome
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	n := 0
	for i := range cmp.Rows {
		want, got := cmp.Rows[i], out.Comparison.Rows[i]
		cells := [][2]*compare.Cell{{want.Base, got.Base}, {&want.Candidates[0].Cell, &got.Candidates[0].Cell}}
		for _, c := range cells {
			if !reflect.DeepEqual(c[0].Samples, c[1].Samples) || !reflect.DeepEqual(c[0].Rounds, c[1].Rounds) || !reflect.DeepEqual(c[0].Summary, c[1].Summary) {
				t.Errorf("%s: cell %+v, want %+v", want.Benchmark, c[1], c[0])
			}
			if len(c[1].Samples) > 0 || c[1].Summary != nil {
				n++
			}
		}
	}
	same := func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }
	nonFinite := 0
	for i := range cmp.Rows {
		w, g := cmp.Rows[i].Candidates[0], out.Comparison.Rows[i].Candidates[0]
		for _, f := range [][2]float64{{w.DeltaPct, g.DeltaPct}, {w.P, g.P}, {w.MDEPct, g.MDEPct}, {w.Lo, g.Lo}, {w.Hi, g.Hi}, {w.Ratio, g.Ratio}} {
			if !same(f[0], f[1]) {
				t.Errorf("%s: %v read back as %v", cmp.Rows[i].Benchmark, f[0], f[1])
			}
			if math.IsNaN(f[0]) || math.IsInf(f[0], 0) {
				nonFinite++
			}
		}
	}
	if nonFinite == 0 {
		t.Error("the comparison holds no NaN nor infinity: the test tests nothing of them")
	}
	if n != 4 {
		t.Errorf("%d cells carry values, want 4", n)
	}
	if !reflect.DeepEqual(out.Results, in.Results) || !reflect.DeepEqual(out.Profiles, in.Profiles) {
		t.Errorf("results or profiles differ after the round trip")
	}
	for _, bad := range []string{`{"comparison":{"comparisons":[]},"cells":[{"row":3,"candidate":0}]}`,
		`{"comparison":{"comparisons":[{"benchmark":"x"}]},"cells":[{"row":0,"candidate":2}]}`, `{"cells":[]}`} {
		if err := json.Unmarshal([]byte(bad), &out); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// TestProgressLines: progress written as JSON lines reads back; other
// lines are not progress.
func TestProgressLines(t *testing.T) {
	var b bytes.Buffer
	want := Progress{Stage: "run", Suite: "go", Variant: "patch", Round: 3, Rounds: 10, Elapsed: 12 * time.Second, Remaining: time.Minute}
	WriteProgress(&b)(want)
	got, ok := ParseProgress(b.Bytes())
	if !ok || got != want {
		t.Errorf("ParseProgress = %+v, %v; want %+v", got, ok, want)
	}
	for _, line := range []string{"perfbot: suite go: round 3/10: patch\n", progressPrefix + "{not json\n", ""} {
		if _, ok := ParseProgress([]byte(line)); ok {
			t.Errorf("%q taken for progress", line)
		}
	}
	if s := Describe(want); s != "suite go: round 3 of 10, patch; 12s elapsed, about 1m0s left" {
		t.Errorf("Describe = %q", s)
	}
	var out bytes.Buffer
	p := NewPrinter(&out, false)
	for _, v := range []string{"base", "patch"} {
		pr := want
		pr.Variant = v
		p.Progress(pr)
	}
	if lines := strings.Count(out.String(), "\n"); lines != 1 {
		t.Errorf("off a terminal, one round printed %d lines:\n%s", lines, out.String())
	}
}

// TestPrinterTerminal: on a terminal the status line is updated in place
// and the runner's lines print above it.
func TestPrinterTerminal(t *testing.T) {
	var out bytes.Buffer
	p := NewPrinter(&out, true)
	p.Progress(Progress{Stage: "run", Suite: "go", Variant: "base", Round: 1, Rounds: 4})
	p.Write([]byte("perfbot: a step\n"))
	p.Progress(Progress{Stage: "run", Suite: "go", Variant: "patch", Round: 1, Rounds: 4, Remaining: 30 * time.Second})
	p.Done()
	want := "\r\033[Kperfbot: suite go: round 1 of 4, base; 0s elapsed" +
		"\r\033[Kperfbot: a step\nperfbot: suite go: round 1 of 4, base; 0s elapsed" +
		"\r\033[Kperfbot: suite go: round 1 of 4, patch; 0s elapsed, about 30s left\r\033[K"
	if out.String() != want {
		t.Errorf("printed %q\nwant    %q", out.String(), want)
	}
}
