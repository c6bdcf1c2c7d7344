package compare

import (
	"strings"
	"testing"

	"github.com/perfbot/perfbot/bench"
)

// TestNoteUnfair: the rows of an unfairly measured suite lose their better
// or worse verdicts, every one says why, and other suites' rows are left
// alone.
func TestNoteUnfair(t *testing.T) {
	var results []*bench.Result
	for _, v := range []struct {
		variant string
		scale   float64
	}{{"base", 1}, {"patch", 0.5}} {
		for _, name := range []string{"BenchmarkServer", "BenchmarkOther"} {
			r := &bench.Result{Benchmark: name, Unit: "ns/op", Better: bench.LowerIsBetter, Variant: v.variant}
			for i := 0; i < 8; i++ {
				r.Samples = append(r.Samples, v.scale*(100+float64(i)))
			}
			results = append(results, r)
		}
	}
	c, err := Compare(results, Options{Base: "base", Candidates: []string{"patch"}})
	if err != nil {
		t.Fatal(err)
	}
	if c.Summary[0].Better != 2 {
		t.Fatalf("summary before %+v, want both better", c.Summary[0])
	}
	c.NoteUnfair("pg", []string{results[0].Key()}, "the other sides used the CPU")
	for _, row := range c.Rows {
		cand := row.Candidates[0]
		switch row.Benchmark {
		case "BenchmarkServer":
			if cand.Verdict != Noisy || cand.Significant || cand.Note != UnfairNote {
				t.Errorf("unfair row: %s, significant %v, note %q", cand.Verdict, cand.Significant, cand.Note)
			}
		default:
			if cand.Verdict != Better || cand.Note != "" {
				t.Errorf("other row: %s, note %q", cand.Verdict, cand.Note)
			}
		}
	}
	if s := c.Summary[0]; s.Better != 1 || s.Noisy != 1 {
		t.Errorf("summary after %+v, want 1 better and 1 noisy", s)
	}
	if len(c.Warnings) == 0 || !strings.Contains(c.Warnings[len(c.Warnings)-1], "suite pg could not be measured fairly") {
		t.Errorf("warnings %q", c.Warnings)
	}
}
