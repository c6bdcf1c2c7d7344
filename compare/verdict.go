package compare

import (
	"math"

	"golang.org/x/perf/benchmath"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/perfbot/perfbot/bench"
)

// decide compares a candidate's cell with the baseline's and fills in the
// candidate's change, test, p-value and verdict.
//
// Samples on both sides are compared with the Mann-Whitney U-test, exactly
// as benchstat does (x/perf benchmath's AssumeNothing): benchmark samples
// are often skewed and carry outliers, so no normality is assumed. When a
// side has only a tool's summary (mean, error, count), Welch's t-test is run
// on the summaries.
func decide(base *Cell, cand *Candidate, unit string, better bench.Direction, opts Options) {
	if base.Center != 0 {
		cand.Ratio = cand.Center / base.Center
		cand.DeltaPct = (cand.Ratio - 1) * 100
	}
	cand.Alpha = opts.Alpha
	switch {
	case len(base.Samples) > 0 && len(cand.Samples) > 0:
		s1 := benchmath.NewSample(base.Samples, &benchmath.Thresholds{CompareAlpha: opts.Alpha})
		s2 := benchmath.NewSample(cand.Samples, &benchmath.Thresholds{CompareAlpha: opts.Alpha})
		c := benchmath.AssumeNothing.Compare(s1, s2)
		cand.P = c.P
		cand.Test = "mann-whitney-u"
		for _, w := range c.Warnings {
			cand.Warnings = append(cand.Warnings, w.Error())
		}
	default:
		cand.P = welchFromCells(base, &cand.Cell, opts.Confidence)
		cand.Test = "welch-t"
	}
	cand.Significant = cand.P <= cand.Alpha && !math.IsNaN(cand.P)
	cand.MDEPct = 100 * (halfWidth(base) + halfWidth(&cand.Cell))
	switch {
	case cand.Significant && cand.Center == base.Center:
		cand.Verdict = Same
	case cand.Significant:
		improved := cand.Center < base.Center
		if better == bench.HigherIsBetter {
			improved = !improved
		}
		if improved {
			cand.Verdict = Better
		} else {
			cand.Verdict = Worse
		}
	case 100*math.Max(halfWidth(base), halfWidth(&cand.Cell)) > opts.NoiseFloorPct:
		cand.Verdict = Noisy
	default:
		cand.Verdict = Same
	}
}

// halfWidth is the larger distance from the centre to an interval bound,
// relative to the centre.
func halfWidth(c *Cell) float64 {
	if c.Center == 0 {
		return 0
	}
	return math.Max(c.Hi-c.Center, c.Center-c.Lo) / math.Abs(c.Center)
}

// welchFromCells runs Welch's t-test on two cells, from their samples when
// they have them and from their summaries otherwise. A summary's error is the
// half-width of a t interval at the summary's confidence (JMH's convention),
// so the standard error is error / t_{(1+conf)/2, n-1}. It returns NaN when
// the data cannot support a test (n < 2 or no error given).
func welchFromCells(a, b *Cell, confidence float64) float64 {
	m1, se1, n1, ok1 := meanSE(a, confidence)
	m2, se2, n2, ok2 := meanSE(b, confidence)
	if !ok1 || !ok2 {
		return math.NaN()
	}
	v1, v2 := se1*se1, se2*se2
	if v1+v2 == 0 {
		if m1 == m2 {
			return 1
		}
		return 0
	}
	t := (m1 - m2) / math.Sqrt(v1+v2)
	df := (v1 + v2) * (v1 + v2) / (v1*v1/float64(n1-1) + v2*v2/float64(n2-1))
	dist := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}
	return 2 * dist.Survival(math.Abs(t))
}

func meanSE(c *Cell, confidence float64) (mean, se float64, n int, ok bool) {
	if len(c.Samples) >= 2 {
		n = len(c.Samples)
		for _, x := range c.Samples {
			mean += x
		}
		mean /= float64(n)
		var ss float64
		for _, x := range c.Samples {
			ss += (x - mean) * (x - mean)
		}
		return mean, math.Sqrt(ss / float64(n-1) / float64(n)), n, true
	}
	if c.Summary == nil || c.Summary.N < 2 || c.Summary.Error <= 0 || math.IsNaN(c.Summary.Error) {
		return 0, 0, 0, false
	}
	conf := c.Summary.Confidence
	if conf == 0 {
		conf = confidence
	}
	n = c.Summary.N
	q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile((1 + conf) / 2)
	return c.Summary.Mean, c.Summary.Error / q, n, true
}
