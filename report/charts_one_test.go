package report

import (
	"bytes"
	"testing"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/compare"
)

// TestChartByName checks that ChartNames names the PNG images Charts
// draws, and that Chart draws each of them, PNG or SVG, alone and the
// same as Charts does.
func TestChartByName(t *testing.T) {
	var rs []*bench.Result
	for i := range 3 {
		for _, size := range []string{"1K", "1M"} {
			for _, side := range []struct {
				variant string
				scale   float64
			}{{"base", 1}, {"patch", 0.7}} {
				v := float64(100+i) * side.scale
				rs = append(rs, &bench.Result{Benchmark: "Op" + string(rune('A'+i)), Unit: "ns/op", Better: bench.LowerIsBetter,
					Params:  bench.Params{{Name: "size", Value: size}},
					Samples: []float64{v, v * 1.01, v * 0.99, v, v * 1.02, v * 0.98}, Variant: side.variant},
					&bench.Result{Benchmark: "Op" + string(rune('A'+i)), Unit: "B/op", Better: bench.LowerIsBetter,
						Params:  bench.Params{{Name: "size", Value: size}},
						Samples: []float64{v, v, v, v, v, v}, Variant: side.variant})
			}
		}
	}
	cmp, err := compare.Compare(rs, compare.Options{Base: "base"})
	if err != nil {
		t.Fatal(err)
	}
	all, err := Charts(cmp)
	if err != nil {
		t.Fatal(err)
	}
	doc := Build(cmp, Options{})
	names, err := ChartNames(cmp, doc)
	if err != nil {
		t.Fatal(err)
	}
	var pngs []string
	for _, a := range all {
		if a.ContentType == "image/png" {
			pngs = append(pngs, a.Name)
		}
	}
	if len(names) < 2 || len(names) != len(pngs) {
		t.Fatalf("ChartNames = %q, Charts drew %q; want the same, at least two", names, pngs)
	}
	for i := range names {
		if names[i] != pngs[i] {
			t.Errorf("chart %d: ChartNames says %q, Charts drew %q", i, names[i], pngs[i])
		}
	}
	for _, want := range all {
		got, ok, err := Chart(cmp, doc, want.Name)
		if err != nil || !ok {
			t.Fatalf("Chart(%q) = %v, %v", want.Name, ok, err)
		}
		if got.ContentType != want.ContentType || !bytes.Equal(got.Data, want.Data) {
			t.Errorf("Chart(%q): %s, %d bytes; Charts drew %s, %d bytes", want.Name, got.ContentType, len(got.Data),
				want.ContentType, len(want.Data))
		}
	}
	if len(doc.Charts) != 0 {
		t.Errorf("ChartNames and Chart recorded charts in the document: %+v", doc.Charts)
	}
	for _, name := range []string{"perfbot-chart-99.png", "perfbot-chart-1.gif", "perfbot-chart-1", "../x.png", ""} {
		if _, ok, err := Chart(cmp, doc, name); ok || err != nil {
			t.Errorf("Chart(%q) = %v, %v; want no chart and no error", name, ok, err)
		}
	}
}
