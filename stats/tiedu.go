package stats

import (
	"fmt"
	"iter"
	"math"
	"slices"

	"github.com/aclements/go-moremath/mathx"
)

// tiedExactMax is the most values a side may have for go-moremath to
// compute a tied p-value exactly (its MannWhitneyTiesExactLimit, 25),
// and so for tiedP to compute it.
const tiedExactMax = 25

// exactChooseMax is the most values in all for which go-moremath's
// binomial coefficients, and so its count of rankings, are exact integers
// (mathx.Choose multiplies integers up to 20 values and uses logarithms
// beyond). Up to it tiedP's p-value is go-moremath's figure for
// figure; beyond it tiedP counts exactly where go-moremath sums
// rounded coefficients, and the two differ in the last digits of a
// float64 (about 1e-15 of the value), far below what a report prints.
const exactChooseMax = 20

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

// TieRuns yields, for each run of equal values of the merged samples x
// and y, both sorted, in order, how many come from x and how many from y.
func TieRuns(x, y []float64) iter.Seq2[int, int] {
	return func(yield func(cx, cy int) bool) {
		for i, j := 0, 0; i < len(x) || j < len(y); {
			v := 0.0
			if j == len(y) || i < len(x) && x[i] <= y[j] {
				v = x[i]
			} else {
				v = y[j]
			}
			cx, cy := 0, 0
			for ; i < len(x) && x[i] == v; i++ {
				cx++
			}
			for ; j < len(y) && y[j] == v; j++ {
				cy++
			}
			if !yield(cx, cy) {
				return
			}
		}
	}
}

// BenchstatTester computes benchstat's p-values (BenchstatP) and keeps
// the table its tied exact test counts in, for reuse: one per goroutine.
type BenchstatTester struct {
	cells []int64
}

// P is BenchstatP.
func (bt *BenchstatTester) P(x, y []float64, alpha float64) (float64, []error) {
	if !finite(x) || !finite(y) {
		return 1, []error{ErrNotFinite}
	}
	if p, w, ok := bt.tiedP(x, y, alpha); ok {
		return p, w
	}
	return benchmathP(x, y, alpha)
}

// tiedP is BenchstatP for finite samples with ties and at most
// tiedExactMax values a side: benchmath.AssumeNothing's two-sided
// Mann-Whitney test with go-moremath's exact distribution of U given the
// ties, and benchmath's warning when the sizes cannot reach alpha. It
// counts the rankings over a table of (values chosen, rank sum) instead
// of go-moremath's maps, which are most of the cost of comparing a large
// suite whose samples hold ties. ok is false when the samples are outside
// that case (no ties, all values equal, too many values, not finite); the
// caller then asks benchmath.
func (bt *BenchstatTester) tiedP(x, y []float64, alpha float64) (p float64, warnings []error, ok bool) {
	n1, n2 := len(x), len(y)
	if n1 == 0 || n2 == 0 || n1 > tiedExactMax || n2 > tiedExactMax {
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
	var groups [2 * tiedExactMax]int
	t := groups[:0]
	r1, ties := 0.0, false
	rank := 1
	for cx, cy := range TieRuns(xs, ys) {
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
		p = bt.tiedCDF(n1, n2, t, math.Min(u1, u2)) * 2
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

// tiedCDF is go-moremath's UDist{N1: n1, N2: n2, T: t}.CDF(u): the share
// of the ways to choose n1 of the ranked values (tie groups t) whose U
// statistic is at most u.
//
// Choosing a value adds 2·(its mean rank) - 1 to 2U + n1², as
// go-moremath's a[k] counts it. The table counts the ways to choose j of
// the values ranked so far with each such sum s up to the limit that u
// sets. Before each group, a state whose every completion stays within
// the limit is counted at once (times the ways to complete it), and one
// whose every completion exceeds it is dropped, as go-moremath's twoUmin
// and twoUmax bounds do: only a narrow band of sums is ever carried.
func (bt *BenchstatTester) tiedCDF(n1, n2 int, t []int, u float64) float64 {
	if u < 0 {
		return 0
	}
	if u >= float64(n1*n2) {
		return 1
	}
	n := n1 + n2
	if len(t) == 2 {
		// go-moremath's closed form for two groups, with its integer
		// division (which truncates a negative bound towards zero and
		// then counts rankings below the smallest U): benchstat prints
		// what it gives.
		twoU := int(2 * u)
		count := 0.0
		for r2 := max(0, n1-t[0]); r2 <= (twoU-n1*(t[0]-n1))/n; r2++ {
			count += mathx.Choose(t[0], n1-r2) * mathx.Choose(t[1], r2)
		}
		return count / mathx.Choose(n, n1)
	}
	limit := int(2*u) + n1*n1
	// add[i] is what the i-th ranked value adds; suffix[i] is the sum of
	// add[i:].
	var add [2*tiedExactMax + 1]int
	var suffix [2*tiedExactMax + 1]int
	i := 0
	for start := 0; i < n && len(t) > 0; t = t[1:] {
		for range t[0] {
			add[i] = 2*start + t[0]
			i++
		}
		start += t[0]
	}
	for i := n - 1; i >= 0; i-- {
		suffix[i] = suffix[i+1] + add[i]
	}
	width := limit + 1
	if need := (n1 + 1) * width; cap(bt.cells) < need {
		bt.cells = make([]int64, need)
	} else {
		bt.cells = bt.cells[:need]
		clear(bt.cells)
	}
	row := func(j int) []int64 { return bt.cells[j*width : (j+1)*width] }
	var low, top [tiedExactMax + 1]int
	for j := range n1 + 1 {
		low[j], top[j] = width, -1
	}
	row(0)[0], low[0], top[0] = 1, 0, 0
	var count int64
	// settle counts and drops, before the value at rank index start, the
	// states whose outcome is already certain.
	settle := func(start int) {
		left := n - start
		for j := range n1 + 1 {
			if low[j] > top[j] {
				continue
			}
			r, m := row(j), n1-j
			if m > left {
				clear(r[low[j] : top[j]+1])
				low[j], top[j] = width, -1
				continue
			}
			minAdd := suffix[start] - suffix[start+m]
			maxAdd := suffix[n-m]
			if sure := min(limit-maxAdd, top[j]); sure >= low[j] {
				var sum int64
				for _, c := range r[low[j] : sure+1] {
					sum += c
				}
				clear(r[low[j] : sure+1])
				count += sum * binomial(left, m)
				low[j] = sure + 1
			}
			if most := limit - minAdd; most < top[j] {
				clear(r[max(most+1, low[j]) : top[j]+1])
				top[j] = most
			}
			if low[j] > top[j] {
				low[j], top[j] = width, -1
			}
		}
	}
	start := 0
	for start < n {
		settle(start)
		size := add[start] - 2*start // the group's size
		a := add[start]
		for j := min(n1, start+size); j >= 1; j-- {
			into := row(j)
			for r := 1; r <= min(size, j); r++ {
				from, plus := row(j-r), r*a
				begin, end := low[j-r], min(top[j-r], limit-plus)
				if begin > end {
					continue
				}
				w := binomial(size, r)
				for s, c := range from[begin : end+1] {
					into[begin+s+plus] += c * w
				}
				low[j], top[j] = min(low[j], begin+plus), max(top[j], end+plus)
			}
		}
		start += size
	}
	settle(n)
	return float64(count) / mathx.Choose(n, n1)
}

// binomial is the binomial coefficient of small integers, exact in an
// int64 for up to 2·tiedExactMax values.
func binomial(n, k int) int64 {
	if k < 0 || k > n {
		return 0
	}
	c := int64(1)
	for i := 1; i <= k; i++ {
		c = c * int64(n-k+i) / int64(i)
	}
	return c
}
