package stats

import "slices"

// DeterministicResult is the comparison of a metric that does not vary
// between runs of the same code, such as allocs/op or B/op.
type DeterministicResult struct {
	// Decided is false when the two sides' values overlap without being
	// all equal (the metric varied after all); the caller should then use
	// a statistical test.
	Decided bool
	// Differs is true when every value of one side is below every value
	// of the other: a consistent difference, which for a deterministic
	// metric is a real one.
	Differs bool
	// P is 0 when Differs, 1 when the sides are equal.
	P float64
}

// CompareDeterministic compares a deterministic metric exactly: equal
// constant values are the same, non-overlapping ranges differ, and anything
// else is left undecided.
func CompareDeterministic(x, y []float64) DeterministicResult {
	if len(x) == 0 || len(y) == 0 || !finite(x) || !finite(y) {
		return DeterministicResult{P: 1}
	}
	xlo, xhi := slices.Min(x), slices.Max(x)
	ylo, yhi := slices.Min(y), slices.Max(y)
	switch {
	case xlo == xhi && ylo == yhi && xlo == ylo:
		return DeterministicResult{Decided: true, P: 1}
	case xhi < ylo || yhi < xlo:
		return DeterministicResult{Decided: true, Differs: true, P: 0}
	}
	return DeterministicResult{P: 1}
}
