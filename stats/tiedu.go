package stats

import (
	"fmt"
	"math"
	"slices"

	"github.com/aclements/go-moremath/mathx"
)

// tiedExactMax is the largest pooled sample size whose tied Mann-Whitney
// p-value tiedBenchstatP computes itself. Up to it every binomial
// coefficient go-moremath uses is an exact integer (mathx.Choose multiplies
// integers up to 20 values and uses logarithms beyond), so its count of
// rankings, a sum of products of exact integers, is the integer computed
// here whatever the order of the sums: both give the same float64, figure
// for figure.
const tiedExactMax = 20

// uTestMinP is benchmath's table of the smallest p-value the U test can
// reach with n values a side, which decides its "need >= n samples"
// warning (golang.org/x/perf/benchmath/anone.go).
var uTestMinP = [...]float64{
	1: 1,
	2: 0.3333333333333333,
	3: 0.1,
	4: 0.02857142857142857,
	5: 0.007936507936507936,
	6: 0.0021645021645021645,
	7: 0.0005827505827505828,
	8: 0.0001554001554001554,
	9: 4.113533525298231e-05,
}

// tiedBenchstatP is BenchstatP for finite samples with ties and at most
// tiedExactMax values in all: benchmath.AssumeNothing's two-sided
// Mann-Whitney test with go-moremath's exact distribution of U given the
// ties, and benchmath's warning when the sizes cannot reach alpha. It
// counts the rankings by a table over (values chosen, doubled rank sum)
// instead of go-moremath's maps, which is most of the cost of comparing a
// large suite whose samples hold ties. ok is false when the samples are
// outside that case (no ties, all values equal, too many values, not
// finite); the caller then asks benchmath.
func tiedBenchstatP(x, y []float64, alpha float64) (p float64, warnings []error, ok bool) {
	n1, n2 := len(x), len(y)
	if n1 == 0 || n2 == 0 || n1+n2 > tiedExactMax {
		return 0, nil, false
	}
	var buf [2 * tiedExactMax]float64
	xs := append(buf[:0:tiedExactMax], x...)
	ys := append(buf[tiedExactMax:tiedExactMax], y...)
	slices.Sort(xs)
	slices.Sort(ys)
	for _, s := range [2][]float64{xs, ys} {
		for _, v := range s {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return 0, nil, false
			}
		}
	}
	// Tie groups in rank order, as go-moremath's T, and R1, the rank sum
	// of x with ties given their mean rank.
	var groups [tiedExactMax]int
	t := groups[:0]
	r1, ties := 0.0, false
	for i, j, rank := 0, 0, 1; i < n1 || j < n2; {
		v := 0.0
		if j == n2 || i < n1 && xs[i] <= ys[j] {
			v = xs[i]
		} else {
			v = ys[j]
		}
		cx, cy := 0, 0
		for ; i < n1 && xs[i] == v; i++ {
			cx++
		}
		for ; j < n2 && ys[j] == v; j++ {
			cy++
		}
		size := cx + cy
		if cx != 0 {
			// go-moremath's float expression, so that R1 is the same.
			r1 += float64(rank+size-1+rank) / 2 * float64(cx)
		}
		t = append(t, size)
		ties = ties || size > 1
		rank += size
	}
	if !ties || len(t) == 1 {
		return 0, nil, false
	}
	u1 := r1 - float64(n1*(n1+1))/2
	u2 := float64(n1*n2) - u1
	if u1 == u2 {
		p = 1
	} else {
		p = tiedCDF(n1, n2, t, math.Min(u1, u2)) * 2
	}
	if p > alpha {
		op, n := ">", len(uTestMinP)
		for k := 1; k < len(uTestMinP); k++ {
			if uTestMinP[k] <= alpha {
				op, n = ">=", k
				break
			}
		}
		if n1 < n && n2 < n {
			warnings = []error{fmt.Errorf("need %s %d samples to detect a difference at alpha level %v", op, n, alpha)}
		}
	}
	return min(p, 1), warnings, true
}

// tiedCDF is go-moremath's UDist{N1: n1, N2: n2, T: t}.CDF(u) for tie
// groups t of at most tiedExactMax values in all: the share of the ways
// to choose n1 of the ranked values whose U statistic is at most u.
func tiedCDF(n1, n2 int, t []int, u float64) float64 {
	if u < 0 {
		return 0
	}
	if u >= float64(n1*n2) {
		return 1
	}
	// Choosing r values of a group whose mean rank doubled is 2m adds
	// r·(2m-1) to 2U + n1², as go-moremath's a[k] counts it.
	limit := int(2*u) + n1*n1
	// table[j][s] counts the ways to choose j of the values ranked so far
	// with doubled rank sum s (as above); low[j] and top[j] bound the s
	// in use.
	var table [tiedExactMax + 1][]int64
	var low, top [tiedExactMax + 1]int
	cells := make([]int64, (n1+1)*(limit+1))
	for j := range table[:n1+1] {
		table[j], low[j], top[j] = cells[j*(limit+1):(j+1)*(limit+1)], limit+1, -1
	}
	table[0][0], low[0], top[0] = 1, 0, 0
	start, left := 0, n1+n2
	for _, size := range t {
		a := 2*start + size // 2·(mean rank) - 1
		left -= size
		// Rows that the values after this group cannot fill up to n1
		// are no longer needed.
		for j := min(n1, start+size); j >= max(1, n1-left); j-- {
			row := table[j]
			for r := 1; r <= min(size, j); r++ {
				from, add := table[j-r], r*a
				begin, end := low[j-r], min(top[j-r], limit-add)
				if begin > end {
					continue
				}
				w := int64(choose(size, r))
				for s, c := range from[begin : end+1] {
					row[begin+s+add] += c * w
				}
				low[j], top[j] = min(low[j], begin+add), max(top[j], end+add)
			}
		}
		start += size
	}
	var count int64
	for _, c := range table[n1] {
		count += c
	}
	return float64(count) / mathx.Choose(n1+n2, n1)
}

// choose is the binomial coefficient of small integers.
func choose(n, k int) int {
	c := 1
	for i := 1; i <= k; i++ {
		c = c * (n - k + i) / i
	}
	return c
}
