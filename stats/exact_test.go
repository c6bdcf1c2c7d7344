package stats

import "testing"

func TestCompareDeterministic(t *testing.T) {
	tests := []struct {
		name string
		x, y []float64
		want DeterministicResult
	}{
		{"same", []float64{3, 3, 3}, []float64{3, 3}, DeterministicResult{Decided: true, P: 1}},
		{"one alloc more", []float64{3, 3, 3}, []float64{4, 4, 4}, DeterministicResult{Decided: true, Differs: true, P: 0}},
		{"fewer bytes", []float64{4096, 4100}, []float64{2048, 2050}, DeterministicResult{Decided: true, Differs: true, P: 0}},
		{"overlap", []float64{10, 12}, []float64{11, 13}, DeterministicResult{P: 1}},
		{"empty", nil, []float64{1}, DeterministicResult{P: 1}},
	}
	for _, tt := range tests {
		if got := CompareDeterministic(tt.x, tt.y); got != tt.want {
			t.Errorf("%s: got %+v, want %+v", tt.name, got, tt.want)
		}
	}
}
