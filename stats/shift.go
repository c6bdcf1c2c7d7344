package stats

import (
	"math"
	"slices"
)

// ShiftInterval is a confidence interval for the shift between two samples,
// the one that goes with the Mann-Whitney test (Hodges-Lehmann estimate,
// Moses interval), as R's wilcox.test(y, x, conf.int = TRUE) computes it.
type ShiftInterval struct {
	// Estimate is the median of the m·n differences y_j - x_i.
	Estimate float64
	// Lo and Hi bound the shifts the test at 1-confidence would not
	// reject.
	Lo, Hi float64
	// Confidence is the level the interval attains: with the exact
	// distribution it is at least the level asked for.
	Confidence float64
}

// maxShiftPairs bounds the differences ShiftCI sorts; beyond it the
// interval comes from a deterministic subsample of each side.
const maxShiftPairs = 1 << 20

// ShiftCI returns the Hodges-Lehmann estimate of the shift of y against x
// (how much larger y's values are) and its Moses confidence interval at the
// given confidence: the d-th smallest and d-th largest of the m·n
// differences y_j - x_i, where d - 1 is the largest count of differences
// the Mann-Whitney statistic may fall short by at level 1-confidence. The
// interval is the set of shifts δ for which the two-sided test of x against
// y-δ does not reject.
//
// For samples under 50 a side it uses the exact null distribution (as
// R's wilcox.test does without ties), else the normal approximation. It
// returns ok false when a sample is empty, holds NaN or infinities, or is
// too small for any interval at this confidence (the whole line would be
// the interval: with 3 values a side nothing is narrower than 90%).
func ShiftCI(x, y []float64, confidence float64) (ShiftInterval, bool) {
	return shiftCI(x, y, confidence, nil)
}

// shiftCI is ShiftCI, sorting the differences in scratch when it is large
// enough.
func shiftCI(x, y []float64, confidence float64, scratch []float64) (ShiftInterval, bool) {
	m, n := len(x), len(y)
	if m == 0 || n == 0 || !finite(x) || !finite(y) || !(confidence > 0 && confidence < 1) {
		return ShiftInterval{}, false
	}
	if m*n > maxShiftPairs {
		// Keep at most 1024 values a side: the interval widens a little
		// (fewer values), never narrows.
		x, y = thin(x, 1024), thin(y, 1024)
		m, n = len(x), len(y)
	}
	alpha := 1 - confidence
	var d int // the rank of the lower bound, 1-based
	var attained float64
	if m < 50 && n < 50 {
		dist := rankSumDist(m, n)
		// d-1 is the largest k with 2·P(W ≤ k) ≤ alpha: the test rejects
		// a shift that leaves k or fewer differences on one side.
		cum := 0.0
		for k, p := range dist {
			if 2*(cum+p) > alpha*(1+1e-9) {
				break
			}
			cum += p
			d = k + 1
		}
		attained = 1 - 2*cum
	} else {
		mu := float64(m*n) / 2
		sigma := math.Sqrt(float64(m*n) * float64(m+n+1) / 12)
		d = int(math.Floor(mu - NormalQuantile(1-alpha/2)*sigma + 0.5))
		attained = confidence
	}
	if d < 1 || d > m*n-d+1 {
		return ShiftInterval{}, false
	}
	diffs := scratch[:0]
	if cap(diffs) < m*n {
		diffs = make([]float64, 0, m*n)
	}
	for _, b := range y {
		for _, a := range x {
			diffs = append(diffs, b-a)
		}
	}
	slices.Sort(diffs)
	return ShiftInterval{
		Estimate:   sortedMedian(diffs),
		Lo:         diffs[d-1],
		Hi:         diffs[len(diffs)-d],
		Confidence: attained,
	}, true
}

// thin keeps k evenly spaced order statistics of x (all of x when it has
// no more than k values), so that the kept values still span its
// distribution.
func thin(x []float64, k int) []float64 {
	if len(x) <= k {
		return x
	}
	s := slices.Clone(x)
	slices.Sort(s)
	out := make([]float64, k)
	for i := range out {
		out[i] = s[i*len(s)/k]
	}
	return out
}

// smallShift is the size of the samples, logarithms and differences
// together, that LogShiftCI works on the stack.
const smallShift = 512

// LogShiftCI is ShiftCI on the logarithms of two samples of positive
// values, turned into percent changes of y against x: a Hodges-Lehmann
// estimate of the ratio y/x and its interval, both as 100·(ratio-1). It
// returns ok false when a value is not positive.
func LogShiftCI(x, y []float64, confidence float64) (est, lo, hi float64, ok bool) {
	// Small samples, the common case, are worked on the stack.
	var buf [smallShift]float64
	scratch := buf[:]
	if len(x)+len(y)+len(x)*len(y) > len(buf) {
		scratch = nil
	}
	lx, ok1 := logsInto(scratch, x)
	ly, ok2 := logsInto(scratch[min(len(x), len(scratch)):], y)
	if !ok1 || !ok2 {
		return 0, 0, 0, false
	}
	if scratch != nil {
		scratch = scratch[len(x)+len(y):]
	}
	s, ok := shiftCI(lx, ly, confidence, scratch)
	if !ok {
		return 0, 0, 0, false
	}
	return 100 * math.Expm1(s.Estimate), 100 * math.Expm1(s.Lo), 100 * math.Expm1(s.Hi), true
}
