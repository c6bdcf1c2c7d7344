package stats

import (
	"errors"
	"math"
)

// Moments summarize a sample for a t-test: its mean, the standard error of
// the mean and the count.
type Moments struct {
	Mean float64
	// SE is the standard error of the mean, sd/√n.
	SE float64
	N  int
}

// MomentsOf computes a sample's mean and standard error.
func MomentsOf(x []float64) Moments {
	n := len(x)
	if n == 0 {
		return Moments{}
	}
	mean, v := meanVar(x)
	return Moments{Mean: mean, SE: math.Sqrt(v / float64(n)), N: n}
}

// meanVar returns the mean and the unbiased variance (n-1 denominator; 0
// for a single value).
func meanVar(x []float64) (mean, variance float64) {
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	if len(x) < 2 {
		return mean, 0
	}
	for _, v := range x {
		d := v - mean
		variance += d * d
	}
	return mean, variance / float64(len(x)-1)
}

// ErrSummary is returned when a summary cannot give a standard error.
var ErrSummary = errors.New("stats: summary needs n >= 2, a non-negative error and a confidence in (0, 1)")

// MomentsFromError turns a tool's summary, a mean with an interval
// half-width err at the given two-sided confidence level over n
// measurements, into Moments. JMH prints
// err = t_{(1+confidence)/2, n-1} · sd/√n (its "± error" at 99.9%), so the
// standard error is err divided by that quantile.
func MomentsFromError(mean, err, confidence float64, n int) (Moments, error) {
	if n < 2 || err < 0 || !(confidence > 0 && confidence < 1) || math.IsNaN(err) || math.IsInf(err, 0) {
		return Moments{Mean: mean, N: n}, ErrSummary
	}
	q := TQuantile((1+confidence)/2, float64(n-1))
	return Moments{Mean: mean, SE: err / q, N: n}, nil
}

// TTest is the result of a two-sided t-test.
type TTest struct {
	T  float64
	DF float64
	P  float64
	// Diff is the estimated difference of means (x - y), and Lo, Hi its
	// confidence interval at the level asked for.
	Diff, Lo, Hi float64
}

// ErrNoVariance is returned by t-tests when the standard error is zero.
var ErrNoVariance = errors.New("stats: the data have no variance")

// Welch is Welch's two-sample t-test from moments, equal to R's
// t.test(x, y, var.equal = FALSE, conf.level = confidence): t = (x̄-ȳ)/s
// with s² = se_x² + se_y² and the Welch-Satterthwaite degrees of freedom
// s⁴ / (se_x⁴/(n_x-1) + se_y⁴/(n_y-1)).
func Welch(x, y Moments, confidence float64) (TTest, error) {
	if x.N < 2 || y.N < 2 {
		return TTest{P: 1, Diff: x.Mean - y.Mean}, ErrEmpty
	}
	vx, vy := x.SE*x.SE, y.SE*y.SE
	s2 := vx + vy
	diff := x.Mean - y.Mean
	if s2 == 0 || math.IsNaN(s2) {
		return TTest{P: 1, Diff: diff}, ErrNoVariance
	}
	df := s2 * s2 / (vx*vx/float64(x.N-1) + vy*vy/float64(y.N-1))
	return tResult(diff, math.Sqrt(s2), df, confidence), nil
}

// WelchSamples is Welch's test on raw samples.
func WelchSamples(x, y []float64, confidence float64) (TTest, error) {
	if !finite(x) || !finite(y) {
		return TTest{P: 1}, ErrNotFinite
	}
	return Welch(MomentsOf(x), MomentsOf(y), confidence)
}

// PairedT is the paired t-test on x[i]-y[i], equal to R's
// t.test(x, y, paired = TRUE, conf.level = confidence).
func PairedT(x, y []float64, confidence float64) (TTest, error) {
	if len(x) != len(y) {
		return TTest{P: 1}, ErrLength
	}
	d := make([]float64, len(x))
	for i := range x {
		d[i] = x[i] - y[i]
	}
	return OneSampleT(d, confidence)
}

// OneSampleT is the t-test of mean(d) = 0, R's t.test(d).
func OneSampleT(d []float64, confidence float64) (TTest, error) {
	if len(d) < 2 {
		return TTest{P: 1}, ErrEmpty
	}
	if !finite(d) {
		return TTest{P: 1}, ErrNotFinite
	}
	m := MomentsOf(d)
	if m.SE == 0 {
		return TTest{P: 1, Diff: m.Mean}, ErrNoVariance
	}
	return tResult(m.Mean, m.SE, float64(m.N-1), confidence), nil
}

func tResult(diff, se, df, confidence float64) TTest {
	t := diff / se
	r := TTest{T: t, DF: df, Diff: diff, P: math.Min(1, 2*tUpper(math.Abs(t), df))}
	if confidence > 0 && confidence < 1 {
		h := TQuantile((1+confidence)/2, df) * se
		r.Lo, r.Hi = diff-h, diff+h
	}
	return r
}
