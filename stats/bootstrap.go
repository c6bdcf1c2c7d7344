package stats

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
)

// RatioPair is one benchmark's two sides for a geomean of ratios: the
// baseline's and the candidate's samples (a single value each when only a
// summary exists).
type RatioPair struct {
	Base, Cand []float64
}

// Interval is an estimate with a confidence interval.
type Interval struct {
	Estimate, Lo, Hi float64
}

// ErrNonPositive is returned when a ratio or a logarithm needs positive
// values and did not get them.
var ErrNonPositive = errors.New("stats: values must be positive")

// GeomeanRatio estimates the geometric mean over benchmarks of the ratio
// median(Cand)/median(Base), with a percentile bootstrap interval at the
// given confidence.
//
// Each of the iterations resamples at two levels, as the data were produced:
// it draws len(pairs) benchmarks with replacement (the suite is a sample of
// possible benchmarks), and within each drawn benchmark it redraws each
// side's samples with replacement (the runs are a sample of possible runs).
// The interval is the (1-confidence)/2 and (1+confidence)/2 quantiles of the
// resampled geomeans. The caller's rng makes the result reproducible.
func GeomeanRatio(pairs []RatioPair, iterations int, confidence float64, rng *rand.Rand) (Interval, error) {
	if len(pairs) == 0 {
		return Interval{Estimate: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}, ErrEmpty
	}
	logs := make([]float64, len(pairs))
	for i, p := range pairs {
		if len(p.Base) == 0 || len(p.Cand) == 0 {
			return Interval{Estimate: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}, ErrEmpty
		}
		for _, v := range append(slices.Clone(p.Base), p.Cand...) {
			if !(v > 0) || math.IsInf(v, 0) {
				return Interval{Estimate: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}, ErrNonPositive
			}
		}
		logs[i] = math.Log(Median(p.Cand) / Median(p.Base))
	}
	est := math.Exp(mean(logs))
	res := Interval{Estimate: est, Lo: est, Hi: est}
	if iterations <= 0 || rng == nil || !(confidence > 0 && confidence < 1) {
		return res, nil
	}
	boot := make([]float64, iterations)
	var bufB, bufC []float64
	for it := range boot {
		sum := 0.0
		for range pairs {
			p := pairs[rng.IntN(len(pairs))]
			bufB = resample(bufB[:0], p.Base, rng)
			bufC = resample(bufC[:0], p.Cand, rng)
			sum += math.Log(sortedMedian(bufC) / sortedMedian(bufB))
		}
		boot[it] = sum / float64(len(pairs))
	}
	slices.Sort(boot)
	res.Lo = math.Exp(Quantile(boot, (1-confidence)/2))
	res.Hi = math.Exp(Quantile(boot, (1+confidence)/2))
	return res, nil
}

// resample appends len(x) values drawn from x with replacement to dst and
// returns it sorted.
func resample(dst, x []float64, rng *rand.Rand) []float64 {
	for range x {
		dst = append(dst, x[rng.IntN(len(x))])
	}
	slices.Sort(dst)
	return dst
}

func mean(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}
