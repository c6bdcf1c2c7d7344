package compare

import (
	"testing"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/stats"
)

// TestUndecided: a clear change is decided, an unchanged benchmark with a
// wide spread is not, and simulated counts that repeat on each side are
// decided even when their noise history leaves the verdict in doubt.
func TestUndecided(t *testing.T) {
	res := func(name, variant string, v ...float64) *bench.Result {
		return &bench.Result{Benchmark: name, Unit: "ns/op", Variant: variant, Samples: v}
	}
	sim := func(name, variant string, v ...float64) *bench.Result {
		return &bench.Result{Benchmark: name, Unit: "instructions/op", Metric: bench.Simulated, Better: bench.LowerIsBetter, Variant: variant, Samples: v}
	}
	results := []*bench.Result{
		res("Clear", "base", 100, 101, 100, 99, 100, 101), res("Clear", "cand", 50, 51, 50, 49, 50, 51),
		res("Wide", "base", 100, 140, 70, 120, 90), res("Wide", "cand", 110, 60, 130, 95, 85),
		sim("Agree", "base", 1000, 1000.2), sim("Agree", "cand", 1060, 1060.1),
		sim("Disagree", "base", 1000, 1020), sim("Disagree", "cand", 1060, 1090),
	}
	opts := Options{Base: "base", Candidates: []string{"cand"}}
	opts.Verdicts.History = func(r *Row) (stats.Noise, bool) {
		if r.Metric == bench.Simulated {
			return stats.Noise{ThresholdPct: 8, N: 10}, true
		}
		return stats.Noise{}, false
	}
	pending, err := Undecided(results, opts, 0)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range pending {
		names = append(names, p.Key)
		if p.P < 0 || p.P > 1 || p.Name == "" {
			t.Errorf("%+v: want a p-value in [0, 1] and a name", p)
		}
	}
	want := []string{results[2].Key(), results[6].Key()}
	if len(names) != len(want) || names[0] != want[0] || names[1] != want[1] {
		t.Errorf("undecided %q, want %q (Wide and Disagree)", names, want)
	}
	if _, err := Undecided([]*bench.Result{res("Only", "base", 1, 2)}, Options{Base: "base"}, 0); err == nil {
		t.Error("only the baseline measured: no error")
	}
}
