package stats

import (
	"math"
	"testing"
)

func TestNoiseLearn(t *testing.T) {
	tests := []struct {
		name   string
		rule   NoiseRule
		deltas []float64
		want   Noise
		err    error
	}{
		// |d| sorted 0.1..0.8; Q1 = median(0.1, 0.2, 0.3, 0.4) = 0.25,
		// Q3 = median(0.5..0.8) = 0.65; 0.65 + 1.5 * 0.4 = 1.25.
		{"even", NoiseRule{}, []float64{0.1, -0.2, 0.3, -0.4, 0.5, 0.6, -0.7, 0.8},
			Noise{ThresholdPct: 1.25, Q1: 0.25, Q3: 0.65, N: 8}, nil},
		// 1..5: the middle value 3 is left out; Q1 = 1.5, Q3 = 4.5;
		// 4.5 + 1.5 * 3 = 9.
		{"odd", NoiseRule{}, []float64{-5, 4, 3, -2, 1},
			Noise{ThresholdPct: 9, Q1: 1.5, Q3: 4.5, N: 5}, nil},
		// rustc-perf's code multiplier: 4.5 + 3 * 3 = 13.5 > 10: unstable.
		{"rustc-perf multiplier", NoiseRule{Multiplier: 3}, []float64{-5, 4, 3, -2, 1},
			Noise{ThresholdPct: 13.5, Q1: 1.5, Q3: 4.5, N: 5, Unstable: true}, nil},
		{"floor", NoiseRule{FloorPct: 0.5}, []float64{0.01, 0.02, 0.01, 0.02},
			Noise{ThresholdPct: 0.5, Q1: 0.01, Q3: 0.02, N: 4}, nil},
		{"short", NoiseRule{}, []float64{1, 2, math.NaN()}, Noise{N: 2}, ErrShortHistory},
	}
	for _, tt := range tests {
		got, err := tt.rule.Learn(tt.deltas)
		if err != tt.err || !near(got.ThresholdPct, tt.want.ThresholdPct, 1e-12) ||
			!near(got.Q1, tt.want.Q1, 1e-12) || !near(got.Q3, tt.want.Q3, 1e-12) ||
			got.N != tt.want.N || got.Unstable != tt.want.Unstable {
			t.Errorf("%s: got %+v, %v; want %+v, %v", tt.name, got, err, tt.want, tt.err)
		}
	}
}

func TestNoiseJudge(t *testing.T) {
	stable := Noise{ThresholdPct: 2}
	unstable := Noise{ThresholdPct: 15, Unstable: true}
	tests := []struct {
		name  string
		n     Noise
		delta float64
		sig   bool
		want  NoiseOutcome
	}{
		{"large significant", stable, -3, true, RealChange},
		{"small significant", stable, 1.5, true, WithinNoise},
		{"not significant", stable, 5, false, WithinNoise},
		{"unstable small", unstable, 5, true, Unstable},
		{"unstable not significant", unstable, 1, false, Unstable},
		{"unstable huge", unstable, 40, true, RealChange},
	}
	for _, tt := range tests {
		if got := tt.n.Judge(tt.delta, tt.sig); got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}
