package stats

import (
	"math"
	"sort"
)

// BenjaminiHochberg returns the Benjamini-Hochberg adjusted p-values, equal
// to R's p.adjust(p, method = "BH"): with the m p-values in increasing order
// p_(1) ≤ … ≤ p_(m), adjusted p_(i) = min_{j ≥ i} min(1, m/j · p_(j)).
// Rejecting the hypotheses whose adjusted p-value is at most q keeps the
// expected share of false discoveries among them at most q (for independent
// or positively dependent tests).
//
// NaN entries are left NaN and do not count towards m, as R's NA.
func BenjaminiHochberg(p []float64) []float64 {
	out := make([]float64, len(p))
	idx := make([]int, 0, len(p))
	for i, v := range p {
		if math.IsNaN(v) {
			out[i] = math.NaN()
			continue
		}
		idx = append(idx, i)
	}
	m := len(idx)
	sort.SliceStable(idx, func(a, b int) bool { return p[idx[a]] < p[idx[b]] })
	run := 1.0
	for k := m - 1; k >= 0; k-- {
		i := idx[k]
		v := p[i] * float64(m) / float64(k+1)
		run = math.Min(run, v)
		out[i] = math.Min(run, 1)
	}
	return out
}
