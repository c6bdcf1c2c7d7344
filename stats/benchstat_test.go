package stats

import (
	"math"
	"slices"
	"testing"
)

func TestBenchstatP(t *testing.T) {
	// Without ties benchstat's test is the exact Mann-Whitney test, as R's.
	x, y := slices.Clone(hwX), slices.Clone(hwY)
	p, _ := BenchstatP(x, y, 0.05)
	if !near(p, 0.2544122544, 1e-9) {
		t.Errorf("no ties: p = %v, want 0.2544122544 (R: wilcox.test(x, y))", p)
	}
	if !slices.Equal(x, hwX) {
		t.Error("BenchstatP reordered its input")
	}

	// With ties (n <= 25) benchstat uses the exact conditional
	// distribution of U given the ties, where R uses the normal
	// approximation (0.06933). Check it against an enumeration of all
	// C(20, 10) = 184756 ways to split the pooled sleep data.
	p, _ = BenchstatP(sleep1, sleep2, 0.05)
	if want := enumeratedP(sleep1, sleep2); !near(p, want, 1e-9) {
		t.Errorf("ties: p = %v, enumeration %v", p, want)
	}

	// Three values a side can never reach 0.05 (min p = 0.1); benchstat
	// warns.
	p, warn := BenchstatP([]float64{1, 2, 3}, []float64{4, 5, 6}, 0.05)
	if !near(p, 0.1, 1e-12) || len(warn) == 0 {
		t.Errorf("n = 3: p = %v warnings %v, want 0.1 and a warning", p, warn)
	}
	if p, w := BenchstatP([]float64{1, math.NaN()}, []float64{2, 3}, 0.05); p != 1 || len(w) != 1 || w[0] != ErrNotFinite {
		t.Errorf("NaN: p = %v, warnings %v", p, w)
	}
	// All equal: benchstat reports p = 1.
	if p, _ := BenchstatP([]float64{1, 1}, []float64{1, 1}, 0.05); p != 1 {
		t.Errorf("all equal: p = %v, want 1", p)
	}
}

// enumeratedP is the two-sided exact permutation p-value of U with ties
// counted as half: 2·P(U ≤ min(U₁, U₂)), capped at 1.
func enumeratedP(x, y []float64) float64 {
	all := append(slices.Clone(x), y...)
	n, m := len(all), len(x)
	u := func(in []bool) float64 {
		s := 0.0
		for i := range all {
			if !in[i] {
				continue
			}
			for j := range all {
				if in[j] {
					continue
				}
				switch {
				case all[i] > all[j]:
					s++
				case all[i] == all[j]:
					s += 0.5
				}
			}
		}
		return s
	}
	in := make([]bool, n)
	for i := range m {
		in[i] = true
	}
	u1 := u(in)
	small := min(u1, float64(len(x)*len(y))-u1)
	if u1 == float64(len(x)*len(y))-u1 {
		return 1
	}
	hit, total := 0.0, 0.0
	var rec func(i, left int)
	rec = func(i, left int) {
		if left == 0 {
			total++
			if u(in) <= small+1e-9 {
				hit++
			}
			return
		}
		if n-i < left {
			return
		}
		in[i] = true
		rec(i+1, left-1)
		in[i] = false
		rec(i+1, left)
	}
	clear(in)
	rec(0, m)
	return min(1, 2*hit/total)
}
