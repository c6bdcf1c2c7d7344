package compare

import (
	"github.com/perfbot/perfbot/provenance"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/bench"
)

// TestNoteCuts checks that a side cut at the output cap is named with
// where it was cut and the benchmarks it lacks.
func TestNoteCuts(t *testing.T) {
	var rs []*bench.Result
	for _, name := range []string{"A", "B", "C", "D"} {
		for _, v := range []string{"base", "cand"} {
			if v == "cand" && name > "B" {
				continue // lost past the cut
			}
			rs = append(rs, &bench.Result{Benchmark: name, Unit: "ns/op", Samples: []float64{1, 2, 3}, Variant: v})
		}
	}
	cmp, err := Compare(rs, Options{Base: "base"})
	if err != nil {
		t.Fatal(err)
	}
	cmp.NoteCuts([]provenance.Cut{{Variant: "cand", Run: "go/cand round 1", Kept: 1024, Dropped: 77, Last: "B"}})
	if len(cmp.Cuts) != 1 || strings.Join(cmp.Cuts[0].Lost, ",") != "C,D" {
		t.Fatalf("cuts %+v, want C and D lost", cmp.Cuts)
	}
	want := "cand: output of go/cand round 1 was cut at the output cap after 1024 bytes (77 more dropped), after B; 2 benchmarks the other sides have are missing: C, D"
	if len(cmp.Warnings) != 1 || cmp.Warnings[0] != want {
		t.Errorf("warnings %q\nwant %q", cmp.Warnings, want)
	}
	cmp.NoteCuts([]provenance.Cut{{Variant: "base", Run: "go/base round 2", Kept: 10}})
	if !strings.Contains(cmp.Warnings[1], "before any benchmark was read; no benchmark of the other sides is missing") {
		t.Errorf("base cut: %q", cmp.Warnings[1])
	}
}
