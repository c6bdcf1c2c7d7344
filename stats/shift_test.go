package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestShiftCIInvertsTheTest checks the interval's definition: a shift just
// inside it is not rejected by the exact Mann-Whitney test at 1-confidence,
// a shift just outside it is.
func TestShiftCIInvertsTheTest(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 300 {
		m, n := 3+rng.IntN(12), 3+rng.IntN(12)
		conf := []float64{0.8, 0.9, 0.95, 0.99}[rng.IntN(4)]
		x, y := make([]float64, m), make([]float64, n)
		shift := rng.NormFloat64()
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		for i := range y {
			y[i] = rng.NormFloat64() + shift
		}
		s, ok := ShiftCI(x, y, conf)
		if MannWhitneyMinP(m, n) > 1-conf {
			if ok {
				t.Errorf("trial %d: %dx%d at %v: got an interval though no shift can be rejected", trial, m, n, conf)
			}
			continue
		}
		if !ok {
			t.Fatalf("trial %d: %dx%d at %v: no interval", trial, m, n, conf)
		}
		if s.Confidence < conf {
			t.Errorf("trial %d: attained confidence %v < %v", trial, s.Confidence, conf)
		}
		var diffs []float64
		for _, b := range y {
			for _, a := range x {
				diffs = append(diffs, b-a)
			}
		}
		slices.Sort(diffs)
		lo, _ := slices.BinarySearch(diffs, s.Lo)
		hi, _ := slices.BinarySearch(diffs, s.Hi)
		mid := func(i, j int) float64 {
			if i < 0 {
				return diffs[0] - 1
			}
			if j >= len(diffs) {
				return diffs[len(diffs)-1] + 1
			}
			return (diffs[i] + diffs[j]) / 2
		}
		p := func(delta float64) float64 {
			ys := make([]float64, n)
			for i, v := range y {
				ys[i] = v - delta
			}
			r, err := MannWhitney(x, ys, ExactAlways, false)
			if err != nil {
				t.Fatal(err)
			}
			return r.P
		}
		alpha := 1 - conf
		for _, c := range []struct {
			name   string
			delta  float64
			reject bool
		}{
			{"below Lo", mid(lo-1, lo), true},
			{"above Lo", mid(lo, lo+1), false},
			{"below Hi", mid(hi-1, hi), false},
			{"above Hi", mid(hi, hi+1), true},
		} {
			if got := p(c.delta) <= alpha+1e-12; got != c.reject {
				t.Errorf("trial %d: %dx%d at %v: shift %s (%v, interval [%v, %v]): rejected %v, want %v",
					trial, m, n, conf, c.name, c.delta, s.Lo, s.Hi, got, c.reject)
			}
		}
		if s.Estimate < s.Lo || s.Estimate > s.Hi {
			t.Errorf("trial %d: estimate %v outside [%v, %v]", trial, s.Estimate, s.Lo, s.Hi)
		}
	}
}

// TestShiftCICoverage checks that the large-sample interval covers the
// true shift about as often as it claims.
func TestShiftCICoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const trials = 2000
	covered := 0
	for range trials {
		x, y := make([]float64, 60), make([]float64, 70)
		for i := range x {
			x[i] = rng.ExpFloat64()
		}
		for i := range y {
			y[i] = rng.ExpFloat64() + 0.5
		}
		s, ok := ShiftCI(x, y, 0.95)
		if !ok {
			t.Fatal("no interval")
		}
		if s.Lo <= 0.5 && 0.5 <= s.Hi {
			covered++
		}
	}
	if got := float64(covered) / trials; math.Abs(got-0.95) > 0.015 {
		t.Errorf("coverage %.3f, want 0.95 ± 0.015", got)
	}
}

func TestShiftCIEdges(t *testing.T) {
	if _, ok := ShiftCI(nil, []float64{1}, 0.95); ok {
		t.Error("empty sample: got an interval")
	}
	if _, ok := ShiftCI([]float64{1, math.NaN()}, []float64{1, 2}, 0.95); ok {
		t.Error("NaN: got an interval")
	}
	if _, ok := ShiftCI([]float64{1, 2, 3}, []float64{4, 5, 6}, 0.95); ok {
		t.Error("3 a side at 95%: got an interval, though the test cannot reject")
	}
	// Every difference is 10: the interval is that point.
	s, ok := ShiftCI([]float64{1, 1, 1, 1, 1}, []float64{11, 11, 11, 11, 11}, 0.95)
	if !ok || s.Lo != 10 || s.Hi != 10 || s.Estimate != 10 {
		t.Errorf("constant shift: %+v, %v", s, ok)
	}
	// A large sample is thinned, not refused.
	big := make([]float64, 3000)
	for i := range big {
		big[i] = float64(i)
	}
	s, ok = ShiftCI(big, big, 0.95)
	if !ok || s.Lo > 0 || s.Hi < 0 {
		t.Errorf("3000 a side, no shift: %+v, %v", s, ok)
	}
	est, lo, hi, ok := LogShiftCI([]float64{100, 101, 99, 100, 102, 98}, []float64{110, 111, 109, 110, 112, 108}, 0.95)
	if !ok || math.Abs(est-10) > 0.5 || lo > est || hi < est || lo < 5 || hi > 15 {
		t.Errorf("LogShiftCI: %v [%v, %v] %v", est, lo, hi, ok)
	}
	if _, _, _, ok := LogShiftCI([]float64{0, 1}, []float64{1, 2}, 0.95); ok {
		t.Error("LogShiftCI with a zero: got an interval")
	}
}

func BenchmarkShiftCI(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	x, y := make([]float64, 20), make([]float64, 20)
	for i := range x {
		x[i], y[i] = rng.NormFloat64(), rng.NormFloat64()
	}
	for b.Loop() {
		ShiftCI(x, y, 0.95)
	}
}
