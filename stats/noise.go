package stats

import (
	"errors"
	"math"
	"slices"
)

// NoiseRule learns a benchmark's noise threshold from the changes it showed
// in past comparisons where nothing changed (runs of a baseline against
// itself, such as those `perfbot calibrate` makes, or commits that did not
// touch the code).
//
// The rule is rustc-perf's interquartile-range fence: with Q1 and Q3 the
// quartiles of the absolute past changes (the medians of the lower and upper
// halves of the sorted values, the middle value left out when the count is
// odd), the threshold is Q3 + Multiplier·(Q3 - Q1), never below FloorPct.
// rustc-perf's documentation states a multiplier of 1.5 and its code uses 3.
type NoiseRule struct {
	// Multiplier of the interquartile range; 0 means 1.5.
	Multiplier float64
	// FloorPct is the smallest threshold, in percent.
	FloorPct float64
	// UnstablePct marks a benchmark unstable when its threshold exceeds
	// it; 0 means 10%.
	UnstablePct float64
	// MinHistory is the fewest past comparisons worth learning from; 0
	// means 4.
	MinHistory int
}

// Noise is what history says about one benchmark.
type Noise struct {
	// ThresholdPct is the learned threshold in percent: changes smaller
	// than this are within the benchmark's usual noise.
	ThresholdPct float64
	// Q1 and Q3 are the quartiles of the absolute past changes.
	Q1, Q3 float64
	// N is the number of past comparisons used.
	N int
	// Unstable is true when the threshold exceeds the rule's UnstablePct.
	Unstable bool
}

// ErrShortHistory is returned when there are too few past comparisons.
var ErrShortHistory = errors.New("stats: too few past comparisons to learn a noise threshold")

// Learn computes the noise threshold from past no-change deltas in percent
// (signs are ignored; NaNs and infinities are skipped).
func (r NoiseRule) Learn(deltasPct []float64) (Noise, error) {
	mult := r.Multiplier
	if mult == 0 {
		mult = 1.5
	}
	minN := r.MinHistory
	if minN == 0 {
		minN = 4
	}
	unstable := r.UnstablePct
	if unstable == 0 {
		unstable = 10
	}
	abs := make([]float64, 0, len(deltasPct))
	for _, d := range deltasPct {
		if !math.IsNaN(d) && !math.IsInf(d, 0) {
			abs = append(abs, math.Abs(d))
		}
	}
	if len(abs) < minN || len(abs) < 2 {
		return Noise{N: len(abs)}, ErrShortHistory
	}
	slices.Sort(abs)
	q1, q3 := hinges(abs)
	t := math.Max(r.FloorPct, q3+mult*(q3-q1))
	return Noise{ThresholdPct: t, Q1: q1, Q3: q3, N: len(abs), Unstable: t > unstable}, nil
}

// hinges returns the medians of the lower and the upper half of sorted s,
// leaving the middle value out when len(s) is odd.
func hinges(s []float64) (q1, q3 float64) {
	h := len(s) / 2
	return sortedMedian(s[:h]), sortedMedian(s[len(s)-h:])
}

// NoiseOutcome is what learned noise makes of a change.
type NoiseOutcome int

const (
	// RealChange: the change is significant and at least as large as the
	// noise threshold.
	RealChange NoiseOutcome = iota
	// WithinNoise: the change is not significant, or smaller than the
	// threshold of a stable benchmark; the verdict is "same".
	WithinNoise
	// Unstable: the benchmark's history is too noisy and this change does
	// not clear its threshold; the verdict is "noisy".
	Unstable
)

// Judge applies the noise threshold to a change of deltaPct percent whose
// test said significant.
func (n Noise) Judge(deltaPct float64, significant bool) NoiseOutcome {
	switch {
	case significant && math.Abs(deltaPct) >= n.ThresholdPct:
		return RealChange
	case n.Unstable:
		return Unstable
	}
	return WithinNoise
}
