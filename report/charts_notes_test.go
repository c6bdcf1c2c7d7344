package report

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/compare"
)

// TestChartsSayWhatTheyLeaveOut draws a table of more rows than a chart
// holds, with an all-zero row: the chart says how many rows it left out
// and draws no empty panel; WriteFiles writes the charts as PNG and SVG.
func TestChartsSayWhatTheyLeaveOut(t *testing.T) {
	var rs []*bench.Result
	for i := range 12 {
		name := "BenchmarkOp" + string(rune('A'+i))
		for _, side := range []struct {
			variant string
			scale   float64
		}{{"pebble-wal-sync-base", 1}, {"pebble-wal-sync-patch", 0.5}} {
			v := float64(100+i) * side.scale
			rs = append(rs, &bench.Result{Benchmark: name, Unit: "ns/op", Better: bench.LowerIsBetter,
				Samples: []float64{v, v * 1.01, v * 0.99, v, v * 1.02, v * 0.98}, Variant: side.variant})
		}
	}
	for _, v := range []string{"pebble-wal-sync-base", "pebble-wal-sync-patch"} {
		rs = append(rs, &bench.Result{Benchmark: "BenchmarkZero", Unit: "ns/op", Better: bench.LowerIsBetter,
			Samples: []float64{0, 0, 0, 0, 0, 0}, Variant: v})
	}
	cmp, err := compare.Compare(rs, compare.Options{Base: "pebble-wal-sync-base"})
	if err != nil {
		t.Fatal(err)
	}
	doc := build(cmp, Options{})
	if _, err := charts(cmp, doc, []string{"png"}); err != nil {
		t.Fatal(err)
	}
	if len(doc.Charts) != 1 {
		t.Fatalf("want one chart, got %+v", doc.Charts)
	}
	title := doc.Charts[0].Title
	for _, want := range []string{"+3 more rows in the tables", "1 all-zero rows not drawn"} {
		if !strings.Contains(title, want) {
			t.Errorf("chart title %q lacks %q", title, want)
		}
	}
	labels := distinctLabels([]string{"pebble-wal-sync-base", "pebble-wal-sync-patch"}, 12)
	if labels[0] == labels[1] || !strings.HasSuffix(labels[0], "base") || !strings.HasSuffix(labels[1], "patch") {
		t.Errorf("labels %q do not tell the variants apart", labels)
	}

	dir := t.TempDir()
	names, err := WriteFiles(dir, cmp, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"report.md", "report.jira", "report.txt", "perfbot-chart-1.png", "perfbot-chart-1.svg"} {
		if !slices.Contains(names, want) {
			t.Errorf("WriteFiles wrote %v, not %s", names, want)
		}
	}
	png, err := os.ReadFile(filepath.Join(dir, "perfbot-chart-1.png"))
	if err != nil || !strings.HasPrefix(string(png), "\x89PNG") {
		t.Errorf("perfbot-chart-1.png is not a PNG: %v", err)
	}
}
