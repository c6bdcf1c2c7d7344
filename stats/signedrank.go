package stats

import (
	"errors"
	"math"
)

// ErrLength is returned by paired tests when the two samples differ in
// length.
var ErrLength = errors.New("stats: paired samples differ in length")

// SignedRank is the two-sided Wilcoxon signed-rank test of the null
// hypothesis that the paired differences x[i]-y[i] are symmetric about
// zero, equal to R's wilcox.test(x, y, paired = TRUE, exact = ...,
// correct = correct).
//
// As in R, zero differences are dropped; the exact distribution is used only
// without ties and zeros; the normal approximation's variance is
// n(n+1)(2n+1)/24 - Σ(t³-t)/48, with the continuity correction when correct
// is true.
func SignedRank(x, y []float64, exact Exactness, correct bool) (RankTest, error) {
	if len(x) != len(y) {
		return RankTest{P: 1}, ErrLength
	}
	d := make([]float64, len(x))
	for i := range x {
		d[i] = x[i] - y[i]
	}
	return SignedRankDiffs(d, exact, correct)
}

// SignedRankDiffs is SignedRank on differences already taken, such as the
// logarithms of per-round ratios.
func SignedRankDiffs(d []float64, exact Exactness, correct bool) (RankTest, error) {
	if len(d) == 0 {
		return RankTest{P: 1}, ErrEmpty
	}
	if !finite(d) {
		return RankTest{P: 1}, ErrNotFinite
	}
	nz := make([]float64, 0, len(d))
	abs := make([]float64, 0, len(d))
	for _, v := range d {
		if v != 0 {
			nz = append(nz, v)
			abs = append(abs, math.Abs(v))
		}
	}
	zeros := len(nz) < len(d)
	n := len(nz)
	if n == 0 {
		return RankTest{P: 1, Ties: true}, ErrIdentical
	}
	ranks, ties := midRanks(abs)
	v := 0.0
	for i, r := range ranks {
		if nz[i] > 0 {
			v += r
		}
	}
	res := RankTest{Statistic: v, Ties: len(ties) > 0 || zeros, N1: n}
	useExact := !res.Ties && (exact == ExactAlways && n <= 10*MaxExact || exact == ExactAuto && n < 50)
	fn := float64(n)
	if useExact {
		res.Exact = true
		dist := signedRankDist(n)
		var tail float64
		if v > fn*(fn+1)/4 {
			tail = sumFrom(dist, int(v))
		} else {
			tail = sumTo(dist, int(v))
		}
		res.P = math.Min(1, 2*tail)
		return res, nil
	}
	sigma := math.Sqrt(fn*(fn+1)*(2*fn+1)/24 - tieSum(ties)/48)
	if sigma == 0 {
		res.P = 1
		return res, ErrIdentical
	}
	res.P = twoSidedNormal(v, fn*(fn+1)/4, sigma, correct)
	return res, nil
}

// signedRankDist returns the null distribution of V for n differences
// without ties: dist[k] = P(V = k), k = 0..n(n+1)/2 (R's dsignrank). The
// counts of subsets of {1..n} summing to k are exact in float64 up to
// n = 52.
func signedRankDist(n int) []float64 {
	max := n * (n + 1) / 2
	c := make([]float64, max+1)
	c[0] = 1
	top := 0
	for r := 1; r <= n; r++ {
		top += r
		for k := top; k >= r; k-- {
			c[k] += c[k-r]
		}
	}
	total := math.Ldexp(1, n)
	for k := range c {
		c[k] /= total
	}
	return c
}

// SignedRankMinP is the smallest two-sided p-value the exact signed-rank
// test can reach with n non-zero differences: 2/2ⁿ, capped at 1.
func SignedRankMinP(n int) float64 {
	if n <= 0 {
		return 1
	}
	return math.Min(1, math.Ldexp(2, -n))
}
