package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestGeomeanRatio(t *testing.T) {
	pairs := []RatioPair{
		{Base: []float64{100, 101, 99}, Cand: []float64{110, 111, 109}}, // median ratio 1.1
		{Base: []float64{50, 50, 50}, Cand: []float64{45, 45, 45}},      // 0.9
	}
	got, err := GeomeanRatio(pairs, 2000, 0.95, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	// sqrt(1.1 * 0.9) = 0.99498744
	if !near(got.Estimate, math.Sqrt(0.99), 1e-12) {
		t.Errorf("estimate = %v, want %v", got.Estimate, math.Sqrt(0.99))
	}
	// Resampling two benchmarks gives 0.9*0.9 ... 1.1*1.1 geomeans, about:
	// the interval must reach both ends of [0.9, 1.1] loosely.
	if !(got.Lo < got.Estimate && got.Estimate < got.Hi && got.Lo >= 0.88 && got.Hi <= 1.12) {
		t.Errorf("interval [%v, %v] around %v", got.Lo, got.Hi, got.Estimate)
	}
	again, _ := GeomeanRatio(pairs, 2000, 0.95, rand.New(rand.NewPCG(1, 2)))
	if again != got {
		t.Errorf("same seed gave %+v, then %+v", got, again)
	}

	// Constant data: the interval collapses onto the estimate.
	flat := []RatioPair{{Base: []float64{2, 2}, Cand: []float64{3, 3}}}
	got, _ = GeomeanRatio(flat, 100, 0.95, rand.New(rand.NewPCG(3, 4)))
	if got.Estimate != 1.5 || got.Lo != 1.5 || got.Hi != 1.5 {
		t.Errorf("constant: got %+v", got)
	}

	if _, err := GeomeanRatio(nil, 10, 0.95, rand.New(rand.NewPCG(1, 1))); err != ErrEmpty {
		t.Errorf("no pairs: err = %v", err)
	}
	if _, err := GeomeanRatio([]RatioPair{{Base: []float64{0}, Cand: []float64{1}}}, 10, 0.95, rand.New(rand.NewPCG(1, 1))); err != ErrNonPositive {
		t.Errorf("zero value: err = %v", err)
	}
}

// TestGeomeanRatioCoverage checks that the 95% interval covers a known true
// geomean ratio in most simulated suites.
func TestGeomeanRatioCoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	const trials, benchmarks, samples = 60, 20, 10
	covered := 0
	for range trials {
		pairs := make([]RatioPair, benchmarks)
		for b := range pairs {
			base := math.Exp(rng.NormFloat64())
			pairs[b].Base = make([]float64, samples)
			pairs[b].Cand = make([]float64, samples)
			for i := range samples {
				pairs[b].Base[i] = base * math.Exp(0.02*rng.NormFloat64())
				pairs[b].Cand[i] = base * 1.03 * math.Exp(0.02*rng.NormFloat64())
			}
		}
		iv, err := GeomeanRatio(pairs, 300, 0.95, rng)
		if err != nil {
			t.Fatal(err)
		}
		if iv.Lo <= 1.03 && 1.03 <= iv.Hi {
			covered++
		}
	}
	if covered < trials*85/100 {
		t.Errorf("95%% interval covered the true ratio in %d of %d suites", covered, trials)
	}
}

// BenchmarkGeomeanRatio measures the default interval (2000 resamples) for
// a suite of 50 benchmarks with 10 samples per side.
func BenchmarkGeomeanRatio(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	pairs := make([]RatioPair, 50)
	for i := range pairs {
		for range 10 {
			pairs[i].Base = append(pairs[i].Base, 100+rng.Float64())
			pairs[i].Cand = append(pairs[i].Cand, 101+rng.Float64())
		}
	}
	for b.Loop() {
		if _, err := GeomeanRatio(pairs, 2000, 0.95, rng); err != nil {
			b.Fatal(err)
		}
	}
}
