package report

import (
	"io"
	"testing"
)

// BenchmarkRender renders a comparison of 10,000 rows, a baseline and one
// candidate, in each format.
func BenchmarkRender(b *testing.B) {
	cmp := bigComparison(10000, "patch")
	for _, format := range AllFormats {
		b.Run(format, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := Render(io.Discard, format, cmp); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkMessage builds the whole message (every venue, the short forms
// fitted to their limits) of the same comparison, without charts.
func BenchmarkMessage(b *testing.B) {
	cmp := bigComparison(10000, "patch")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Message(cmp, Options{NoCharts: true}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCharts draws the charts of the HBase WAL seed: a sweep and
// the perf stat panels, PNG and SVG.
func BenchmarkCharts(b *testing.B) {
	cmp, _ := loadSeed(b, "hbase-wal")
	for b.Loop() {
		if _, err := Charts(cmp); err != nil {
			b.Fatal(err)
		}
	}
}
