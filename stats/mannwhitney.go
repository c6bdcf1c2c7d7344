package stats

import (
	"math"
	"sync"
)

// MannWhitney is the two-sided Wilcoxon rank-sum (Mann-Whitney U) test of
// the null hypothesis that x and y come from the same distribution, equal to
// R's wilcox.test(x, y, exact = ..., correct = correct).
//
// With the exact distribution (see Exactness) P is
// min(1, 2·P(W ≤ w)) or min(1, 2·P(W ≥ w)), whichever tail w lies in. The
// normal approximation uses the variance corrected for ties,
// n_x n_y/12 · ((N+1) - Σ(t³-t)/(N(N-1))), and, when correct is true, the
// continuity correction of half a rank towards the mean.
//
// This is not the test benchstat runs: go-moremath's test, behind
// benchmath.AssumeNothing, uses an exact distribution that accounts for
// ties. BenchstatP gives that one.
func MannWhitney(x, y []float64, exact Exactness, correct bool) (RankTest, error) {
	nx, ny := len(x), len(y)
	if nx == 0 || ny == 0 {
		return RankTest{P: 1}, ErrEmpty
	}
	if !finite(x) || !finite(y) {
		return RankTest{P: 1}, ErrNotFinite
	}
	all := make([]float64, 0, nx+ny)
	all = append(append(all, x...), y...)
	ranks, ties := midRanks(all)
	w := -float64(nx*(nx+1)) / 2
	for _, r := range ranks[:nx] {
		w += r
	}
	res := RankTest{Statistic: w, Ties: len(ties) > 0, N1: nx, N2: ny}
	useExact := !res.Ties && (exact == ExactAlways && nx <= MaxExact && ny <= MaxExact ||
		exact == ExactAuto && nx < 50 && ny < 50)
	if useExact {
		res.Exact = true
		dist := rankSumDist(nx, ny)
		var tail float64
		if w > float64(nx*ny)/2 {
			tail = sumFrom(dist, int(w)) // P(W ≥ w)
		} else {
			tail = sumTo(dist, int(w)) // P(W ≤ w)
		}
		res.P = math.Min(1, 2*tail)
		return res, nil
	}
	n := float64(nx + ny)
	sigma := math.Sqrt(float64(nx*ny) / 12 * ((n + 1) - tieSum(ties)/(n*(n-1))))
	if sigma == 0 {
		res.P = 1
		return res, ErrIdentical
	}
	res.P = twoSidedNormal(w, float64(nx*ny)/2, sigma, correct)
	return res, nil
}

// rankSumDists memoises rankSumDist: the distributions depend on the
// sample sizes alone, every comparison of 10 against 10 samples needs the
// same one, and computing it costs O(m²n²). Keys are [2]int{m, n}, values
// []float64 that nobody modifies. Only sizes under 50 a side are kept, so
// the cache holds at most 2,401 tables (about 12 MB).
var rankSumDists sync.Map

// rankSumDist returns the null distribution of the Mann-Whitney statistic
// for samples of sizes m and n without ties: dist[k] = P(W = k),
// k = 0..m·n (R's dwilcox). Callers must not modify it.
func rankSumDist(m, n int) []float64 {
	key := [2]int{m, n}
	if d, ok := rankSumDists.Load(key); ok {
		return d.([]float64)
	}
	d := computeRankSumDist(m, n)
	if m < 50 && n < 50 {
		rankSumDists.Store(key, d)
	}
	return d
}

// computeRankSumDist is rankSumDist without the cache. It uses the
// recursion on the largest of the m+n values: it belongs to the first
// sample with probability m/(m+n), adding n to W.
func computeRankSumDist(m, n int) []float64 {
	// prev[j] is the distribution for sizes (i-1, j); cur[j] for (i, j).
	prev := make([][]float64, n+1)
	for j := range prev {
		prev[j] = []float64{1} // i = 0: W = 0 surely
	}
	for i := 1; i <= m; i++ {
		cur := make([][]float64, n+1)
		cur[0] = []float64{1}
		for j := 1; j <= n; j++ {
			d := make([]float64, i*j+1)
			pi := float64(i) / float64(i+j)
			pj := 1 - pi
			for k, p := range prev[j] { // largest from sample 1: W += j
				d[k+j] += pi * p
			}
			for k, p := range cur[j-1] { // largest from sample 2
				d[k] += pj * p
			}
			cur[j] = d
		}
		prev = cur
	}
	return prev[n]
}

// sumTo is P(X ≤ k) for a distribution over 0..len(d)-1.
func sumTo(d []float64, k int) float64 {
	s := 0.0
	for i := 0; i <= k && i < len(d); i++ {
		s += d[i]
	}
	return math.Min(s, 1)
}

// sumFrom is P(X ≥ k), summed from the tail for accuracy.
func sumFrom(d []float64, k int) float64 {
	s := 0.0
	for i := len(d) - 1; i >= k && i >= 0; i-- {
		s += d[i]
	}
	return math.Min(s, 1)
}

// MannWhitneyMinP is the smallest two-sided p-value the exact Mann-Whitney
// test can reach with samples of sizes m and n: 2/C(m+n, m), capped at 1.
// With m = n = 5 it is 0.0079; benchstat's warning "need >= 4 samples to
// detect a difference at alpha level 0.05" is MannWhitneyMinP(3, 3) = 0.1 >
// 0.05.
func MannWhitneyMinP(m, n int) float64 {
	if m <= 0 || n <= 0 {
		return 1
	}
	lc, _ := math.Lgamma(float64(m + n + 1))
	la, _ := math.Lgamma(float64(m + 1))
	lb, _ := math.Lgamma(float64(n + 1))
	return math.Min(1, 2*math.Exp(la+lb-lc))
}
