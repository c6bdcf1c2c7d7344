package stats

import (
	"errors"
	"math"
	"sort"
)

// Exactness chooses between a rank test's exact null distribution and its
// normal approximation.
type Exactness int

const (
	// ExactAuto is R's default: the exact distribution when every sample
	// has fewer than 50 values and there are no ties (nor, for the
	// signed-rank test, zero differences); otherwise the normal
	// approximation.
	ExactAuto Exactness = iota
	// ExactAlways uses the exact distribution at larger sizes too, as R's
	// exact = TRUE does, up to MaxExact values per sample; with ties or
	// zeros R, and this package, still fall back to the normal
	// approximation.
	ExactAlways
	// ExactNever always uses the normal approximation (R's exact = FALSE).
	ExactNever
)

// MaxExact bounds the sample size for which ExactAlways computes the exact
// distribution; the rank-sum distribution for two samples of n takes about
// 8·n³ bytes to build.
const MaxExact = 100

// ErrEmpty is returned when a test gets a sample without values.
var ErrEmpty = errors.New("stats: a sample has no values")

// ErrIdentical is returned by rank tests when every value (or every
// difference) is the same, so the test cannot order anything. The result
// then carries P = 1.
var ErrIdentical = errors.New("stats: all values are identical")

// RankTest is the result of a two-sided rank test.
type RankTest struct {
	// Statistic is R's statistic: W (the rank sum of x minus
	// n_x(n_x+1)/2) for Mann-Whitney, V (the sum of the ranks of positive
	// differences) for the signed-rank test.
	Statistic float64
	// P is the two-sided p-value.
	P float64
	// Exact is true when P comes from the exact null distribution, false
	// for the normal approximation.
	Exact bool
	// Ties is true when tied ranks were found (or, for the signed-rank
	// test, zero differences dropped).
	Ties bool
	// N1 and N2 are the sample sizes used; for the signed-rank test N1 is
	// the number of non-zero differences and N2 is 0.
	N1, N2 int
}

// midRanks returns the 1-based ranks of v with ties given their average
// rank, as R's rank(), and the sizes of the groups of tied values.
func midRanks(v []float64) (ranks []float64, ties []int) {
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return v[idx[a]] < v[idx[b]] })
	ranks = make([]float64, len(v))
	for i := 0; i < len(idx); {
		j := i + 1
		for j < len(idx) && v[idx[j]] == v[idx[i]] {
			j++
		}
		r := float64(i+1+j) / 2 // mean of ranks i+1..j
		for k := i; k < j; k++ {
			ranks[idx[k]] = r
		}
		if j-i > 1 {
			ties = append(ties, j-i)
		}
		i = j
	}
	return ranks, ties
}

// tieSum is Σ (t³ - t) over the groups of tied values.
func tieSum(ties []int) float64 {
	s := 0.0
	for _, t := range ties {
		ft := float64(t)
		s += ft*ft*ft - ft
	}
	return s
}

// twoSidedNormal is R's two-sided p-value for a statistic with mean mu and
// standard deviation sigma, with the continuity correction when correct.
func twoSidedNormal(stat, mu, sigma float64, correct bool) float64 {
	z := stat - mu
	if correct {
		switch {
		case z > 0:
			z -= 0.5
		case z < 0:
			z += 0.5
		}
	}
	z /= sigma
	return math.Min(1, 2*NormalUpper(math.Abs(z)))
}

func finite(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// ErrNotFinite is returned when a sample holds NaN or an infinity.
var ErrNotFinite = errors.New("stats: a sample holds NaN or an infinite value")
