package report

import (
	"strings"
	"testing"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/compare"
)

// TestHeadlineNamesSimulatedCounts: a cpu-sim row is named in the headline
// by what was counted, so instructions and estimated cycles read apart
// ("Append -58% instructions, -55% est-cycles"), not "simulated" twice.
func TestHeadlineNamesSimulatedCounts(t *testing.T) {
	var rs []*bench.Result
	for unit, counts := range map[string][2]float64{"instructions/op": {1205, 508}, "est-cycles/op": {1211, 545}} {
		for _, v := range []string{"base", "patch"} {
			n := counts[0]
			if v == "patch" {
				n = counts[1]
			}
			for range 2 {
				rs = append(rs, &bench.Result{Benchmark: "Append", Metric: bench.Simulated, Unit: unit,
					Better: bench.LowerIsBetter, Samples: []float64{n}, Variant: v})
			}
		}
	}
	cmp, err := compare.Compare(rs, compare.Options{Base: "base"})
	if err != nil {
		t.Fatal(err)
	}
	h := headlineOf(cmp)
	for _, want := range []string{"-58% instructions", "-55% est-cycles"} {
		if !strings.Contains(h.Changes, want) {
			t.Errorf("headline %q lacks %q", h.Changes, want)
		}
	}
	if strings.Contains(h.Changes, "simulated") {
		t.Errorf("headline %q names the counts by the instrument, not by what was counted", h.Changes)
	}
}
