package stats

import (
	"math"
	"testing"
)

func TestBenjaminiHochberg(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name string
		p    []float64
		want []float64
	}{
		// > p.adjust(c(0.01, 0.02, 0.03, 0.04, 0.05), "BH")
		// [1] 0.05 0.05 0.05 0.05 0.05
		{"all equal after", []float64{0.01, 0.02, 0.03, 0.04, 0.05}, []float64{0.05, 0.05, 0.05, 0.05, 0.05}},
		// > p.adjust(c(0.042, 0.001, 0.205, 0.039, 0.008, 0.074, 0.041, 0.06), "BH")
		// [1] 0.0672 0.0080 0.2050 0.0672 0.0320 0.0845714 0.0672 0.0800
		// (sorted: 8/j * p_(j) = .008 .032 .104 .082 .0672 .08 .0845714 .205,
		//  then running minimum from the largest)
		{"unsorted", []float64{0.042, 0.001, 0.205, 0.039, 0.008, 0.074, 0.041, 0.06},
			[]float64{0.0672, 0.008, 0.205, 0.0672, 0.032, 0.074 * 8 / 7, 0.0672, 0.08}},
		// > p.adjust(c(0.5, 0.9, 1), "BH")
		// [1] 1 1 1                 (capped at 1)
		{"capped", []float64{0.5, 0.9, 1}, []float64{1, 1, 1}},
		// > p.adjust(c(0.01, NA, 0.04), "BH")
		// [1] 0.02   NA 0.04
		{"NA", []float64{0.01, nan, 0.04}, []float64{0.02, nan, 0.04}},
		{"empty", nil, []float64{}},
	}
	for _, tt := range tests {
		got := BenjaminiHochberg(tt.p)
		if len(got) != len(tt.want) {
			t.Fatalf("%s: %d values, want %d", tt.name, len(got), len(tt.want))
		}
		for i := range got {
			if !near(got[i], tt.want[i], 1e-12) {
				t.Errorf("%s: adjusted[%d] = %v, want %v", tt.name, i, got[i], tt.want[i])
			}
		}
	}
}
