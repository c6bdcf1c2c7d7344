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
	return GeomeanRatioOf(pairs, len(pairs), iterations, confidence, rng)
}

// GeomeanRatioOf is GeomeanRatio for one of several geomeans a comparison
// computes over total benchmarks in all (one per unit and candidate): the
// resampling effort is bounded over all of them together, so a suite
// split into many units costs what one unit of the same size does.
func GeomeanRatioOf(pairs []RatioPair, total, iterations int, confidence float64, rng *rand.Rand) (Interval, error) {
	if len(pairs) == 0 {
		return Interval{Estimate: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}, ErrEmpty
	}
	logs := make([]float64, len(pairs))
	for i, p := range pairs {
		if len(p.Base) == 0 || len(p.Cand) == 0 {
			return Interval{Estimate: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}, ErrEmpty
		}
		for _, side := range [2][]float64{p.Base, p.Cand} {
			for _, v := range side {
				if !(v > 0) || math.IsInf(v, 0) {
					return Interval{Estimate: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}, ErrNonPositive
				}
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
	total = max(total, len(pairs))
	if total*iterations > bootstrapWork {
		iterations = max(500, bootstrapWork/total)
	}
	poolSize := min(iterations, bootstrapPool)
	flat := total*poolSize > bootstrapPoolTotal
	if flat {
		// Over this many benchmarks the inner level adds little to the
		// geomean's spread: fewer resamples per benchmark describe it,
		// and all pools stay small enough to sit in the CPU's cache.
		poolSize = max(bootstrapPoolMin, bootstrapPoolTotal/total)
	}
	pools := make([]float64, len(pairs)*poolSize)
	var counts []int
	for i, p := range pairs {
		pool := pools[i*poolSize : (i+1)*poolSize]
		constant := isConstant(p.Base) && isConstant(p.Cand)
		if constant {
			for k := range pool {
				pool[k] = logs[i]
			}
			continue
		}
		base, cand := sortedCopy(p.Base), sortedCopy(p.Cand)
		for k := range pool {
			var mb, mc float64
			mb, counts = resampledMedian(base, counts, rng, flat)
			mc, counts = resampledMedian(cand, counts, rng, flat)
			pool[k] = math.Log(mc / mb)
		}
	}
	boot := make([]float64, iterations)
	if !flat {
		for it := range boot {
			sum := 0.0
			for range pairs {
				b := rng.IntN(len(pairs))
				sum += pools[b*poolSize+rng.IntN(poolSize)]
			}
			boot[it] = sum / float64(len(pairs))
		}
	} else {
		// Drawing a benchmark, then an entry of its pool, is drawing an
		// entry of all pools at once, as they have one size: one
		// random number per draw, two draws per 64 random bits.
		size := uint64(len(pools))
		for it := range boot {
			sum := 0.0
			for k := 0; k < len(pairs); k += 2 {
				x := rng.Uint64()
				sum += pools[(x&0xffffffff)*size>>32]
				if k+1 < len(pairs) {
					sum += pools[(x>>32)*size>>32]
				}
			}
			boot[it] = sum / float64(len(pairs))
		}
	}
	slices.Sort(boot)
	res.Lo = math.Exp(Quantile(boot, (1-confidence)/2))
	res.Hi = math.Exp(Quantile(boot, (1+confidence)/2))
	return res, nil
}

// bootstrapPool is how many inner resamples GeomeanRatio draws per
// benchmark.
const bootstrapPool = 256

// bootstrapPoolTotal bounds the inner resamples of all benchmarks
// together (8 bytes each); bootstrapPoolMin is the fewest per benchmark.
const (
	bootstrapPoolTotal = 1 << 17
	bootstrapPoolMin   = 16
)

// bootstrapWork bounds GeomeanRatio's outer draws (iterations × benchmarks).
const bootstrapWork = 5_000_000

func isConstant(x []float64) bool {
	for _, v := range x {
		if v != x[0] {
			return false
		}
	}
	return true
}

// sortedCopy is x sorted: x itself when it already is (it is then only
// read), else a sorted copy.
func sortedCopy(x []float64) []float64 {
	if slices.IsSorted(x) {
		return x
	}
	c := slices.Clone(x)
	slices.Sort(c)
	return c
}

// resampledMedian draws len(sorted) values of sorted with replacement and
// returns their median. It counts how often each position is drawn instead
// of sorting the draw: the k-th smallest drawn value is found by walking
// the counts in order. counts is scratch space, returned for reuse. With
// fast, each 64 random bits give two draws.
func resampledMedian(sorted []float64, counts []int, rng *rand.Rand, fast bool) (float64, []int) {
	n := len(sorted)
	if cap(counts) < n {
		counts = make([]int, n)
	}
	counts = counts[:n]
	clear(counts)
	if fast && n < 1<<31 {
		un := uint64(n)
		for k := 0; k < n; k += 2 {
			x := rng.Uint64()
			counts[(x&0xffffffff)*un>>32]++
			if k+1 < n {
				counts[(x>>32)*un>>32]++
			}
		}
	} else {
		for range n {
			counts[rng.IntN(n)]++
		}
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
