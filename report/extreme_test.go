package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/compare"
)

// TestExtremeValues checks that values beyond what SI prefixes write
// sensibly render in scientific notation, not as 300 digits.
func TestExtremeValues(t *testing.T) {
	var rs []*bench.Result
	for _, side := range []struct {
		variant string
		scale   float64
	}{{"base", 1e308}, {"cand", 1.1e308}} {
		for i, name := range []string{"Huge", "Normal"} {
			for k := 0; k < 5; k++ {
				v := side.scale * (1 + float64(k)/100)
				if i == 1 {
					v = 100 + float64(k)
				}
				rs = append(rs, &bench.Result{Benchmark: name, Unit: "ns/op", Better: bench.LowerIsBetter, Samples: []float64{v}, Variant: side.variant})
			}
		}
	}
	cmp, err := compare.Compare(rs, compare.Options{Base: "base"})
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"text", "markdown"} {
		var b bytes.Buffer
		if err := Render(&b, format, cmp); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if !strings.Contains(out, "1.020e+299") || !strings.Contains(out, "102.0n") {
			t.Errorf("%s: want 1.020e+299 and 102.0n:\n%s", format, out)
		}
		for _, l := range strings.Split(out, "\n") {
			if len(l) > 200 {
				t.Errorf("%s: line of %d characters: %.80s...", format, len(l), l)
			}
		}
	}
}
