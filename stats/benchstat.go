package stats

import "golang.org/x/perf/benchmath"

// BenchstatP is the p-value benchstat prints for two samples: the
// Mann-Whitney U test of benchmath.AssumeNothing (go-moremath's test, exact
// for up to 50 values per side without ties and 25 with ties, its exact
// distribution accounting for ties). When that test cannot run (an empty
// sample, all values equal) benchstat reports P = 1, and so does this. The
// inputs are not modified. Warnings are benchmath's, such as "need >= 4
// samples to detect a difference at alpha level 0.05". Samples holding NaN
// or infinities give P = 1 and ErrNotFinite.
func BenchstatP(x, y []float64, alpha float64) (p float64, warnings []error) {
	var bt BenchstatTester
	return bt.P(x, y, alpha)
}

// benchmathP is benchstat's test through benchmath itself.
func benchmathP(x, y []float64, alpha float64) (float64, []error) {
	th := &benchmath.Thresholds{CompareAlpha: alpha}
	s1 := benchmath.NewSample(append([]float64(nil), x...), th)
	s2 := benchmath.NewSample(append([]float64(nil), y...), th)
	c := benchmath.AssumeNothing.Compare(s1, s2)
	// go-moremath doubles the tail of its exact distribution with ties
	// without capping it, and can print p-values above 1 (such as 1.6 for
	// 4 values against 1 with ties); a p-value is at most 1.
	return min(c.P, 1), c.Warnings
}

// BenchstatSignificant reports whether benchstat would print a delta rather
// than "~": it does so when P <= alpha.
func BenchstatSignificant(p, alpha float64) bool { return p <= alpha }
