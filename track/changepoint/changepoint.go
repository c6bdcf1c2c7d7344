package changepoint

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/stats"
)

// Test is the significance test of a candidate change point.
type Test string

// Tests.
const (
	// TTest is Student's two-sample t-test of the segments either side.
	TTest Test = "ttest"
	// Permutation shuffles points within segments (Matteson and James).
	Permutation Test = "permutation"
)

// Options tune the detector; the zero value is the documented defaults.
type Options struct {
	// Alpha is the significance level (0: config.DefaultTrackAlpha).
	Alpha float64
	// MinChangePct is the smallest relative change, in percent of the
	// earlier centre, that is reported (0: 5; negative: none).
	MinChangePct float64
	// MinSize is the fewest points on each side of a change (0: 2).
	MinSize int
	// Test is the significance test (empty: TTest).
	Test Test
	// Permutations is the number of shuffles of the permutation test
	// (0: 199).
	Permutations int
	// Seed seeds the permutation test's shuffles.
	Seed uint64
	// Confidence is the level of the centres' intervals (0: 0.95).
	Confidence float64
}

// withDefaults fills in the defaults and checks the values.
func (o Options) withDefaults() (Options, error) {
	if o.Alpha == 0 {
		o.Alpha = config.DefaultTrackAlpha
	}
	if !(o.Alpha > 0 && o.Alpha < 1) {
		return o, fmt.Errorf("changepoint: alpha %v: want a level in (0, 1)", o.Alpha)
	}
	switch {
	case o.MinChangePct == 0:
		o.MinChangePct = config.DefaultTrackMinChangePct
	case o.MinChangePct < 0:
		o.MinChangePct = 0
	case math.IsNaN(o.MinChangePct) || math.IsInf(o.MinChangePct, 0):
		return o, fmt.Errorf("changepoint: minimum change %v: want a finite percentage", o.MinChangePct)
	}
	if o.MinSize == 0 {
		o.MinSize = 2
	}
	if o.MinSize < 1 {
		return o, fmt.Errorf("changepoint: minimum size %d: want at least 1 point a side", o.MinSize)
	}
	switch o.Test {
	case "":
		o.Test = TTest
	case TTest, Permutation:
	default:
		return o, fmt.Errorf("changepoint: test %q: want %q or %q", o.Test, TTest, Permutation)
	}
	if o.Permutations == 0 {
		o.Permutations = 199
	}
	if o.Permutations < 1 {
		return o, fmt.Errorf("changepoint: %d permutations: want at least 1", o.Permutations)
	}
	if o.Confidence == 0 {
		o.Confidence = 0.95
	}
	if !(o.Confidence > 0 && o.Confidence < 1) {
		return o, fmt.Errorf("changepoint: confidence %v: want a level in (0, 1)", o.Confidence)
	}
	return o, nil
}

// Segment summarizes the points on one side of a change.
type Segment struct {
	// Start and End bound the segment, [Start, End), in the series' indices.
	Start, End int
	// N counts its finite points.
	N int
	// Centre is their mean, Lo and Hi its interval at Options.Confidence
	// (both the mean when the points do not vary).
	Centre, Lo, Hi float64
	// Median is their median.
	Median float64
}

// Point is one change.
type Point struct {
	// Index is the first point after the change and Last the last point
	// before it, in the series' indices (they differ by more than one
	// where non-finite points lie between).
	Index, Last   int
	Before, After Segment
	// DeltaPct is the change of the centre, in percent of Before.Centre.
	DeltaPct float64
	// P is the significance test's p-value.
	P float64
	// Q is the E-divisive statistic of the split.
	Q float64
}

// Detect returns the change points of series, oldest first.
func Detect(series []float64, opts Options) ([]Point, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	var x []float64
	var idx []int
	for i, v := range series {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			x, idx = append(x, v), append(idx, i)
		}
	}
	if len(x) < 2*o.MinSize || len(x) < 3 {
		return nil, nil
	}
	z, shift, scale := normalize(x)
	if scale == 0 {
		return nil, nil // constant
	}
	d := &detector{x: z, o: o, shift: shift, scale: scale, best: map[[2]int]candidate{}, permP: map[int]float64{}}
	d.pre = prefixDistances(z)
	cps := d.split()
	cps = d.merge(cps)
	out := make([]Point, 0, len(cps))
	bounds := append(append([]int{0}, cps...), len(z))
	for i := 1; i+1 < len(bounds); i++ {
		s, t, e := bounds[i-1], bounds[i], bounds[i+1]
		st := d.test(s, t, e)
		if d.o.Test == Permutation {
			st.p = d.permP[t]
		}
		p := Point{
			Index: idx[t], Last: idx[t-1], P: st.p, Q: d.candidateAt(s, t, e),
			Before: summarize(z[s:t], shift, scale, o.Confidence),
			After:  summarize(z[t:e], shift, scale, o.Confidence),
		}
		p.Before.Start, p.Before.End = idx[s], idx[t-1]+1
		p.After.Start, p.After.End = idx[t], idx[e-1]+1
		p.DeltaPct = relPct(p.Before.Centre, p.After.Centre)
		if math.IsNaN(p.DeltaPct) || math.IsInf(p.DeltaPct, 0) || !finiteSegment(p.Before) || !finiteSegment(p.After) {
			continue
		}
		out = append(out, p)
	}
	return out, nil
}

// normalize maps x to z = (x - shift) / scale with |z| <= 2, so distances
// and sums neither overflow nor depend on the unit.
func normalize(x []float64) (z []float64, shift, scale float64) {
	for _, v := range x {
		scale = math.Max(scale, math.Abs(v))
	}
	if scale == 0 {
		return nil, 0, 0
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range x {
		lo, hi = math.Min(lo, v/scale), math.Max(hi, v/scale)
	}
	if hi == lo {
		return nil, 0, 0
	}
	shift = (lo + hi) / 2 * scale
	z = make([]float64, len(x))
	for i, v := range x {
		z[i] = v/scale - (lo+hi)/2
	}
	return z, shift, scale
}

// candidate is the best split of one segment.
type candidate struct {
	tau, kappa int
	q          float64
}

type detector struct {
	x []float64
	o Options
	// shift and scale map x back to the original values.
	shift, scale float64
	pre          []float64
	best         map[[2]int]candidate
	// permP holds the permutation test's p-value of each kept split.
	permP map[int]float64
}

// prefixDistances returns P with P[i*(n+1)+j] = Σ_{a<i, b<j} |z_a - z_b|.
func prefixDistances(z []float64) []float64 {
	n := len(z)
	w := n + 1
	p := make([]float64, w*w)
	for i := 1; i <= n; i++ {
		row := 0.0
		zi := z[i-1]
		for j := 1; j <= n; j++ {
			row += math.Abs(zi - z[j-1])
			p[i*w+j] = p[(i-1)*w+j] + row
		}
	}
	return p
}

// rect is Σ_{i∈[a,b), j∈[c,d)} |z_i - z_j|.
func rect(p []float64, w, a, b, c, d int) float64 {
	return p[b*w+d] - p[a*w+d] - p[b*w+c] + p[a*w+c]
}

// bestSplit scores every split of [s, e) on the distances in p and returns
// the best; tau is 0 when the segment is too short to split.
func bestSplit(p []float64, w, s, e, minSize int) candidate {
	best := candidate{q: math.Inf(-1)}
	for tau := s + minSize; tau+minSize <= e; tau++ {
		n := float64(tau - s)
		wx := rect(p, w, s, tau, s, tau) / 2
		for kappa := tau + minSize; kappa <= e; kappa++ {
			m := float64(kappa - tau)
			q := 2 / (m + n) * rect(p, w, s, tau, tau, kappa)
			if n > 1 {
				q -= 2 * m / ((m + n) * (n - 1)) * wx
			}
			if m > 1 {
				q -= 2 * n / ((m + n) * (m - 1)) * rect(p, w, tau, kappa, tau, kappa) / 2
			}
			if q > best.q {
				best = candidate{tau: tau, kappa: kappa, q: q}
			}
		}
	}
	if best.tau == 0 {
		return candidate{}
	}
	return best
}

// candidateAt is the best Q̂ of the split at t within [s, e).
func (d *detector) candidateAt(s, t, e int) float64 {
	w := len(d.x) + 1
	best := math.Inf(-1)
	n := float64(t - s)
	for kappa := t + 1; kappa <= e; kappa++ {
		m := float64(kappa - t)
		q := 2 / (m + n) * rect(d.pre, w, s, t, t, kappa)
		if n > 1 {
			q -= 2 * m / ((m + n) * (n - 1)) * rect(d.pre, w, s, t, s, t) / 2
		}
		if m > 1 {
			q -= 2 * n / ((m + n) * (m - 1)) * rect(d.pre, w, t, kappa, t, kappa) / 2
		}
		best = math.Max(best, q)
	}
	return best
}

// segmentBest caches each segment's best split.
func (d *detector) segmentBest(s, e int) candidate {
	k := [2]int{s, e}
	if c, ok := d.best[k]; ok {
		return c
	}
	c := bestSplit(d.pre, len(d.x)+1, s, e, d.o.MinSize)
	d.best[k] = c
	return c
}

// split runs the divisive search and returns the kept indices, sorted.
func (d *detector) split() []int {
	level := d.o.Alpha
	switch {
	case level < 0.05:
		level *= 10
	case level < 0.5:
		level *= 2
	}
	if d.o.Test == Permutation {
		level = d.o.Alpha
	}
	var rng *rand.Rand
	if d.o.Test == Permutation {
		rng = rand.New(rand.NewPCG(d.o.Seed, 0x6368616e6765))
	}
	var cps []int
	for {
		bounds := append(append([]int{0}, cps...), len(d.x))
		var best candidate
		bs, be := 0, 0
		for i := 1; i < len(bounds); i++ {
			c := d.segmentBest(bounds[i-1], bounds[i])
			if c.tau != 0 && (best.tau == 0 || c.q > best.q) {
				best, bs, be = c, bounds[i-1], bounds[i]
			}
		}
		if best.tau == 0 {
			return cps
		}
		var p float64
		if d.o.Test == Permutation {
			p = d.permutationP(bounds, best.q, rng)
			d.permP[best.tau] = p
		} else {
			// X = x[s:τ] against Y = x[τ:κ], the pair the statistic chose:
			// a later change inside the segment does not hide this one.
			// The split is the best of the segment's positions: Bonferroni
			// for choosing it keeps the search from chasing noise.
			p = d.test(bs, best.tau, best.kappa).p * float64(be-bs-2*d.o.MinSize+1)
		}
		if !(p <= level) {
			return cps
		}
		cps = append(cps, best.tau)
		slices.Sort(cps)
	}
}

// permutationP is the share of shuffles (within each segment) whose best
// Q̂ over all segments reaches q, counting the data's own order once.
func (d *detector) permutationP(bounds []int, q float64, rng *rand.Rand) float64 {
	z := slices.Clone(d.x)
	w := len(z) + 1
	reach := 0
	for range d.o.Permutations {
		for i := 1; i < len(bounds); i++ {
			seg := z[bounds[i-1]:bounds[i]]
			rng.Shuffle(len(seg), func(a, b int) { seg[a], seg[b] = seg[b], seg[a] })
		}
		p := prefixDistances(z)
		best := math.Inf(-1)
		for i := 1; i < len(bounds); i++ {
			if c := bestSplit(p, w, bounds[i-1], bounds[i], d.o.MinSize); c.tau != 0 {
				best = math.Max(best, c.q)
			}
		}
		if best >= q {
			reach++
		}
	}
	return float64(reach+1) / float64(d.o.Permutations+1)
}

// tested is the test of one split: p-value and relative change.
type tested struct {
	p float64
	// change is the smaller relative change, in percent, of the means
	// and of the medians.
	change float64
}

// test compares x[s:t] with x[t:e] by Student's t-test on their ranks
// and measures the change of their means and medians.
func (d *detector) test(s, t, e int) tested {
	a, b := d.x[s:t], d.x[t:e]
	ra, rb := ranks(a, b)
	ma, va := meanVar(ra)
	mb, vb := meanVar(rb)
	n1, n2 := float64(len(a)), float64(len(b))
	var p float64
	df := n1 + n2 - 2
	pooled := ((n1-1)*va + (n2-1)*vb) / df
	se := math.Sqrt(pooled * (1/n1 + 1/n2))
	switch {
	case df < 1:
		p = 1
	case se == 0 || math.IsNaN(se):
		p = 1
		if ma != mb {
			p = 0
		}
	default:
		p = math.Min(1, 2*stats.TCDF(-math.Abs(ma-mb)/se, df))
	}
	ma, _ = meanVar(a)
	mb, _ = meanVar(b)
	// The smaller of the changes in means and in medians, on the
	// original scale, so that one outlier cannot carry a change.
	byMean := math.Abs(relPct(ma*d.scale+d.shift, mb*d.scale+d.shift))
	byMedian := math.Abs(relPct(stats.Median(a)*d.scale+d.shift, stats.Median(b)*d.scale+d.shift))
	return tested{p: p, change: math.Min(byMean, byMedian)}
}

// merge drops the weakest point until every point, tested against its
// neighbours' segments, is significant at Alpha (t-test only: a
// permutation p-value stands as the split found it) and changes at least
// MinChangePct.
func (d *detector) merge(cps []int) []int {
	for len(cps) > 0 {
		bounds := append(append([]int{0}, cps...), len(d.x))
		weakest, weakP := -1, -1.0
		smallest, smallChange := -1, math.Inf(1)
		for i := 1; i+1 < len(bounds); i++ {
			st := d.test(bounds[i-1], bounds[i], bounds[i+1])
			if d.o.Test == TTest && st.p > weakP {
				weakest, weakP = i-1, st.p
			}
			if !(st.change >= smallChange) {
				smallest, smallChange = i-1, st.change
			}
		}
		drop := -1
		switch {
		case d.o.Test == TTest && !(weakP <= d.o.Alpha):
			drop = weakest
		case !(smallChange >= d.o.MinChangePct):
			drop = smallest
		}
		if drop < 0 {
			return cps
		}
		cps = slices.Delete(cps, drop, drop+1)
	}
	return cps
}

// ranks returns the ranks of a's and b's values in the two together, ties
// sharing their mean rank.
func ranks(a, b []float64) (ra, rb []float64) {
	n := len(a) + len(b)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	at := func(i int) float64 {
		if i < len(a) {
			return a[i]
		}
		return b[i-len(a)]
	}
	slices.SortFunc(order, func(i, j int) int { return cmp.Compare(at(i), at(j)) })
	r := make([]float64, n)
	for i := 0; i < n; {
		j := i + 1
		for j < n && at(order[j]) == at(order[i]) {
			j++
		}
		mid := float64(i+j+1) / 2
		for k := i; k < j; k++ {
			r[order[k]] = mid
		}
		i = j
	}
	return r[:len(a)], r[len(a):]
}

func meanVar(x []float64) (mean, variance float64) {
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	if len(x) < 2 {
		return mean, 0
	}
	for _, v := range x {
		variance += (v - mean) * (v - mean)
	}
	return mean, variance / float64(len(x)-1)
}

// relPct is (after/before - 1) in percent; 0 for equal values, infinite
// for a change from zero.
func relPct(before, after float64) float64 {
	if before == after {
		return 0
	}
	if before == 0 {
		return math.Copysign(math.Inf(1), after)
	}
	return (after/before - 1) * 100 * math.Copysign(1, before)
}

// summarize describes one segment on the original scale.
func summarize(z []float64, shift, scale, confidence float64) Segment {
	m, _ := meanVar(z)
	seg := Segment{N: len(z), Centre: m*scale + shift, Median: stats.Median(z)*scale + shift}
	seg.Lo, seg.Hi = seg.Centre, seg.Centre
	if t, err := stats.OneSampleT(z, confidence); err == nil {
		seg.Lo, seg.Hi = t.Lo*scale+shift, t.Hi*scale+shift
	}
	return seg
}

func finiteSegment(s Segment) bool {
	for _, v := range []float64{s.Centre, s.Lo, s.Hi, s.Median} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}
