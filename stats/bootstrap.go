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
	// The inner level is drawn once per benchmark into a pool of
	// resampled log ratios; each outer iteration then draws benchmarks and,
	// for each, one entry of its pool. This two-stage scheme keeps the
	// bootstrap's cost linear in benchmarks + iterations instead of their
	// product (10,000 benchmarks × 2,000 iterations would otherwise resample
	// 20 million sample sets).
	// Over many benchmarks the geomean's sampling distribution is narrow
	// and smooth, and fewer outer draws describe it as well: cap the
	// outer work at bootstrapWork draws, keeping at least 500 iterations.
	if len(pairs)*iterations > bootstrapWork {
		iterations = max(500, bootstrapWork/len(pairs))
	}
	poolSize := min(iterations, bootstrapPool)
	pools := make([][]float64, len(pairs))
	var counts []int
	for i, p := range pairs {
		base, cand := sortedCopy(p.Base), sortedCopy(p.Cand)
		pool := make([]float64, poolSize)
		constant := base[0] == base[len(base)-1] && cand[0] == cand[len(cand)-1]
		for k := range pool {
			if constant {
				pool[k] = logs[i]
				continue
			}
			var mb, mc float64
			mb, counts = resampledMedian(base, counts, rng)
			mc, counts = resampledMedian(cand, counts, rng)
			pool[k] = math.Log(mc / mb)
		}
		pools[i] = pool
	}
	boot := make([]float64, iterations)
	for it := range boot {
		sum := 0.0
		for range pairs {
			pool := pools[rng.IntN(len(pools))]
			sum += pool[rng.IntN(len(pool))]
		}
		boot[it] = sum / float64(len(pairs))
	}
	slices.Sort(boot)
	res.Lo = math.Exp(Quantile(boot, (1-confidence)/2))
	res.Hi = math.Exp(Quantile(boot, (1+confidence)/2))
	return res, nil
}

// bootstrapPool is how many inner resamples GeomeanRatio draws per
// benchmark.
const bootstrapPool = 256

// bootstrapWork bounds GeomeanRatio's outer draws (iterations × benchmarks).
const bootstrapWork = 5_000_000

func sortedCopy(x []float64) []float64 {
	c := slices.Clone(x)
	slices.Sort(c)
	return c
}

// resampledMedian draws len(sorted) values of sorted with replacement and
// returns their median. It counts how often each position is drawn instead
// of sorting the draw: the k-th smallest drawn value is found by walking
// the counts in order. counts is scratch space, returned for reuse.
func resampledMedian(sorted []float64, counts []int, rng *rand.Rand) (float64, []int) {
	n := len(sorted)
	if cap(counts) < n {
		counts = make([]int, n)
	}
	counts = counts[:n]
	clear(counts)
	for range n {
		counts[rng.IntN(n)]++
	}
	kth := func(k int) float64 { // 0-based k-th smallest of the draw
		seen := 0
		for i, c := range counts {
			seen += c
			if seen > k {
				return sorted[i]
			}
		}
		return sorted[n-1]
	}
	if n%2 == 1 {
		return kth(n / 2), counts
	}
	return (kth(n/2-1) + kth(n/2)) / 2, counts
}

func mean(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}
