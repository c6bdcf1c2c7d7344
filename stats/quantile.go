package stats

import (
	"math"
	"slices"
)

// Median is the sample median (the mean of the two middle values for an
// even count); NaN for an empty sample.
func Median(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	if slices.IsSorted(x) {
		return sortedMedian(x) // samples are mostly kept sorted
	}
	s := slices.Clone(x)
	slices.Sort(s)
	return sortedMedian(s)
}

func sortedMedian(s []float64) float64 {
	n := len(s)
	if n == 0 {
		return math.NaN()
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Quantile is R's default (type 7) quantile of a sorted sample: linear
// interpolation between the order statistics at (n-1)·q.
func Quantile(sorted []float64, q float64) float64 {
	n := len(sorted)
	if n == 0 || math.IsNaN(q) {
		return math.NaN()
	}
	h := float64(n-1) * math.Min(1, math.Max(0, q))
	lo := math.Floor(h)
	i := int(lo)
	if i+1 >= n {
		return sorted[n-1]
	}
	return sorted[i] + (h-lo)*(sorted[i+1]-sorted[i])
}

// MAD is the median absolute deviation scaled by 1.4826, so that it
// estimates the standard deviation of normal data (R's mad()).
func MAD(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	m := Median(x)
	d := make([]float64, len(x))
	for i, v := range x {
		d[i] = math.Abs(v - m)
	}
	slices.Sort(d)
	return 1.4826 * sortedMedian(d)
}
