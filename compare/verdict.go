package compare

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/stats"
)

// Method names the rules that turn tests into verdicts.
type Method string

const (
	// MethodPerfbot, the default, picks the test by what the data is,
	// holds the whole suite to a false-discovery rate, and applies noise
	// thresholds learned from history.
	MethodPerfbot Method = "perfbot"
	// MethodBenchstat is benchstat's method: the Mann-Whitney U test of
	// benchmath (Welch's t-test when a side has only a summary), each row
	// held to Alpha on its own, without false-discovery-rate control or
	// history.
	MethodBenchstat Method = "benchstat"
)

// ParseMethod is the method a name ("perfbot", "benchstat") names.
func ParseMethod(name string) (Method, error) {
	switch m := Method(name); m {
	case MethodPerfbot, MethodBenchstat:
		return m, nil
	}
	return "", fmt.Errorf("method %q: want perfbot or benchstat", name)
}

// Test names, as Candidate.Test reports them.
const (
	TestMannWhitney = "mann-whitney-u"
	TestSignedRank  = "wilcoxon-signed-rank"
	TestPairedT     = "paired-t"
	TestWelch       = "welch-t"
	TestExact       = "exact"
)

// VerdictOptions control how verdicts are reached.
type VerdictOptions struct {
	// Method is MethodPerfbot when empty.
	Method Method
	// FDR is the false-discovery rate each candidate's rows are held to
	// under MethodPerfbot; 0 means Options.Alpha.
	FDR float64
	// Paired says that each side's Cell.Rounds were measured in matched,
	// interleaved rounds (round i of the baseline next to round i of each
	// candidate), so a paired test can cancel the drift they share.
	Paired bool
	// History returns what past no-change comparisons say about a row's
	// noise on this host; nil or false when nothing is known.
	History func(row *Row) (stats.Noise, bool)
	// BootstrapIterations is the number of resamples behind the geomean
	// interval: 0 means 2000, a negative number computes no interval.
	BootstrapIterations int
	// Seed seeds the bootstrap, so the same data give the same interval.
	Seed uint64
}

// Power is the power at which minimum detectable effects are computed.
const Power = 0.8

// decide compares a candidate's cell with the baseline's and fills in the
// candidate's change, test, p-value, minimum detectable effect and a
// verdict for this row alone. The suite-level pass, settle, then applies
// false-discovery-rate control and history.
//
// The test follows what the data is:
//   - deterministic units (allocs/op, B/op) are compared exactly: equal
//     constant values are the same, values whose ranges do not overlap
//     differ (P = 0);
//   - samples on both sides, in matched rounds (VerdictOptions.Paired): the
//     paired t-test on the per-round log ratios log(cand_i/base_i), which
//     cancels drift the two sides share. Under no change the two sides of a
//     round are alike, so the log ratios are symmetric about zero and the
//     t-test holds its level even with skewed, outlying runs. The
//     signed-rank test (stats.SignedRank) is not used: with n rounds its
//     smallest p-value is 2/2ⁿ, 0.002 for 10 rounds, which cannot pass the
//     false-discovery cutoff of a suite of 50 (0.001 for a lone change);
//   - samples on both sides: the Mann-Whitney U test, exactly as benchstat
//     runs it (x/perf benchmath's AssumeNothing), because benchmark samples
//     are skewed and carry outliers;
//   - a summary on either side (JMH text: score, error at 99.9%, count):
//     Welch's t-test on means and standard errors.
func decide(base *Cell, cand *Candidate, unit string, better bench.Direction, opts Options, memo *memo) {
	if base.Center != 0 {
		cand.Ratio = cand.Center / base.Center
		cand.DeltaPct = (cand.Ratio - 1) * 100
	}
	cand.Alpha = opts.Alpha
	method := opts.Verdicts.Method
	both := len(base.Samples) > 0 && len(cand.Samples) > 0
	decided := false
	if method != MethodBenchstat && both && bench.Deterministic(unit) {
		if r := stats.CompareDeterministic(base.Samples, cand.Samples); r.Decided {
			cand.Test, cand.P, decided = TestExact, r.P, true
		}
	}
	if !decided {
		switch {
		case method != MethodBenchstat && both && opts.Verdicts.Paired && pairable(base, &cand.Cell):
			r, err := stats.OneSampleT(logRatios(base.Rounds, cand.Rounds), opts.Confidence)
			cand.Test, cand.P = TestPairedT, r.P
			switch err {
			case nil:
				cand.setInterval(100*math.Expm1(r.Lo), 100*math.Expm1(r.Hi))
			case stats.ErrNoVariance:
				// Every round changed by the same ratio.
				cand.P = 1
				if r.Diff != 0 {
					cand.P = 0
				}
				cand.setInterval(100*math.Expm1(r.Diff), 100*math.Expm1(r.Diff))
			}
		case both:
			p, warnings := memo.benchstatP(base.Samples, cand.Samples, opts.Alpha)
			cand.Test, cand.P = TestMannWhitney, p
			for _, w := range warnings {
				cand.Warnings = append(cand.Warnings, w.Error())
			}
			if _, lo, hi, ok := stats.LogShiftCI(base.Samples, cand.Samples, opts.Confidence); ok {
				cand.setInterval(lo, hi)
			}
		default:
			cand.Test, cand.P = TestWelch, welch(base, &cand.Cell, opts.Confidence)
			if lo, hi, ok := welchInterval(base, &cand.Cell, opts.Confidence); ok {
				cand.setInterval(lo, hi)
			}
		}
	} else if base.Center != 0 && constant(base.Samples) && constant(cand.Samples) {
		// Two constants: the change is known exactly (unless from zero,
		// which no percentage describes).
		cand.setInterval(cand.DeltaPct, cand.DeltaPct)
	}
	judge(base, cand, better, opts, nil, memo)
}

// setInterval records the change's confidence interval in percent.
func (c *Candidate) setInterval(lo, hi float64) {
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return
	}
	c.ChangeLoPct, c.ChangeHiPct = &lo, &hi
}

// welchInterval is Welch's interval for the difference of the means, in
// percent of the baseline's mean.
func welchInterval(base, cand *Cell, confidence float64) (lo, hi float64, ok bool) {
	m1, ok1 := moments(base, confidence)
	m2, ok2 := moments(cand, confidence)
	if !ok1 || !ok2 || m1.Mean == 0 {
		return 0, 0, false
	}
	r, err := stats.Welch(m2, m1, confidence)
	if err != nil {
		return 0, 0, false
	}
	return 100 * r.Lo / math.Abs(m1.Mean), 100 * r.Hi / math.Abs(m1.Mean), true
}

// constant reports whether a sample holds values all equal.
func constant(x []float64) bool {
	for _, v := range x {
		if v != x[0] {
			return false
		}
	}
	return len(x) > 0
}

// judge sets MDEPct, Significant and Verdict from P and Alpha, with noise
// learned from history when known.
func judge(base *Cell, cand *Candidate, better bench.Direction, opts Options, noise *stats.Noise, memo *memo) {
	// MDEPct is +Inf when no change could have been detected, such as
	// Mann-Whitney with 3 samples a side (its smallest p-value is 0.1);
	// report's JSON writes it as null.
	if sameConstant(base, &cand.Cell) {
		// Every sample on both sides is one and the same value (0 failed
		// transactions, 0 allocations): nothing changed, and no spread
		// could hide a change.
		cand.MDEPct, cand.Significant, cand.Verdict = 0, false, Same
		return
	}
	m := mde(base, cand, opts, memo)
	cand.MDEPct = m
	cand.Significant = !math.IsNaN(cand.P) && cand.P <= cand.Alpha
	changed := cand.Significant && cand.Center != base.Center
	noisy := !changed && wide(cand, m, opts.NoiseFloorPct)
	if noise != nil && cand.Test != TestExact {
		switch noise.Judge(cand.DeltaPct, changed) {
		case stats.WithinNoise:
			changed = false
		case stats.Unstable:
			changed, noisy = false, true
		}
	}
	if method := opts.Verdicts.Method; method != MethodBenchstat && cand.Test == TestMannWhitney {
		if bound := max(base.split, cand.split); bound > 0 {
			pct := 100 * math.Expm1(bound)
			cand.RunNoisePct = &pct
			if changed && cand.Ratio > 0 && math.Abs(math.Log(cand.Ratio)) <= bound {
				changed, noisy = false, true
				cand.addNote(RunNoiseNote)
			}
		}
	}
	switch {
	case changed:
		improved := cand.Center < base.Center
		if better == bench.HigherIsBetter {
			improved = !improved
		}
		cand.Verdict = Worse
		if improved {
			cand.Verdict = Better
		}
	case noisy:
		cand.Verdict = Noisy
	default:
		cand.Verdict = Same
	}
}

// wide reports whether a comparison that found no change still leaves
// room for one of floorPct or more: its change interval reaches ±floorPct,
// or, without an interval, its minimum detectable effect m exceeds
// floorPct.
func wide(c *Candidate, m, floorPct float64) bool {
	if c.ChangeLoPct != nil && c.ChangeHiPct != nil {
		return *c.ChangeLoPct <= -floorPct || *c.ChangeHiPct >= floorPct
	}
	return m > floorPct
}

// mde is the minimum detectable effect of the candidate's test at its
// Alpha, in percent; +Inf when no change could have been detected, 0 for
// exact comparisons.
func mde(base *Cell, cand *Candidate, opts Options, memo *memo) float64 {
	var v float64
	switch cand.Test {
	case TestExact:
		return 0
	case TestPairedT:
		v = stats.MDEPaired(logRatios(base.Rounds, cand.Rounds), cand.Alpha, Power)
	case TestMannWhitney:
		v = memo.rankSum(len(base.Samples), len(cand.Samples), cand.Alpha).Of(base.Samples, cand.Samples)
	default:
		m1, ok1 := moments(base, opts.Confidence)
		m2, ok2 := moments(&cand.Cell, opts.Confidence)
		if !ok1 || !ok2 {
			return math.Inf(1)
		}
		v = stats.MDEWelch(m1, m2, cand.Alpha, Power)
	}
	if math.IsNaN(v) {
		return math.Inf(1)
	}
	return v
}

// pairable reports whether two cells hold at least three matched rounds of
// positive values.
func pairable(a, b *Cell) bool {
	if len(a.Rounds) != len(b.Rounds) || len(a.Rounds) < 3 {
		return false
	}
	for i := range a.Rounds {
		if !(a.Rounds[i] > 0 && b.Rounds[i] > 0) {
			return false
		}
	}
	return true
}

// logRatios returns log(cand[i]/base[i]) per round.
func logRatios(base, cand []float64) []float64 {
	d := make([]float64, len(base))
	for i := range base {
		d[i] = math.Log(cand[i] / base[i])
	}
	return d
}

// welch runs Welch's t-test on two cells and returns its p-value, or NaN
// when the data cannot support a test (n < 2 or no error given).
func welch(a, b *Cell, confidence float64) float64 {
	m1, ok1 := moments(a, confidence)
	m2, ok2 := moments(b, confidence)
	if !ok1 || !ok2 {
		return math.NaN()
	}
	if m1.SE == 0 && m2.SE == 0 {
		if m1.Mean == m2.Mean {
			return 1
		}
		return 0
	}
	r, err := stats.Welch(m1, m2, 0)
	if err != nil {
		return math.NaN()
	}
	return r.P
}

// moments gives a cell's mean and standard error: from its samples, or from
// its summary, whose error is the half-width of a t interval at the
// summary's confidence (JMH's convention; opts' confidence when the tool
// named none).
func moments(c *Cell, confidence float64) (stats.Moments, bool) {
	if len(c.Samples) >= 2 {
		return stats.MomentsOf(c.Samples), true
	}
	s := c.Summary
	if s == nil || s.Error <= 0 || math.IsNaN(s.Error) {
		return stats.Moments{}, false
	}
	conf := s.Confidence
	if conf == 0 {
		conf = confidence
	}
	m, err := stats.MomentsFromError(s.Mean, s.Error, conf, s.N)
	return m, err == nil
}

// Decided reports whether a candidate's comparison needs no more rounds:
// it found a change, or it found none while ruling out changes of
// targetPct or more: the change's confidence interval lies within
// ±targetPct. Adaptive sampling keeps adding rounds to the benchmarks that
// are not decided while the budget lasts.
//
// The interval, not the MDE, is what rules a change out: a benchmark that
// truly moved by targetPct may miss significance by a hair (an outlier
// costs a rank test much at 6 rounds a side) while its MDE, computed from
// the robust spread, already looks small enough; its interval still
// reaches targetPct, so it gets more rounds. Without an interval (a
// summary without error), a "same" with an MDE of at most targetPct is
// decided.
func Decided(c *Candidate, targetPct float64) bool {
	switch c.Verdict {
	case Better, Worse:
		return true
	case Same, Noisy:
		if c.ChangeLoPct != nil && c.ChangeHiPct != nil {
			return -targetPct < *c.ChangeLoPct && *c.ChangeHiPct < targetPct
		}
		return c.Verdict == Same && c.MDEPct <= targetPct
	}
	return false
}

// sameConstant reports whether both cells hold samples that are all one
// and the same value.
func sameConstant(a, b *Cell) bool {
	if len(a.Samples) == 0 || len(b.Samples) == 0 {
		return false
	}
	v := a.Samples[0]
	for _, c := range [][]float64{a.Samples, b.Samples} {
		for _, x := range c {
			if x != v {
				return false
			}
		}
	}
	return true
}

// RunNoiseNote is the note of a wall-time row whose change, significant as
// it may be, is no larger than what the same code moved by during the run
// (Candidate.RunNoisePct): the row is noisy, not better or worse.
const RunNoiseNote = "within the noise this run saw: the same code moved as much between the halves of its rounds"

// halvesSplit is how far apart two halves of values (in the order
// measured) lie, as |log ratio| of their medians, the larger of two
// splits: the first half against the second (the middle value of an odd
// count left out), which sees slow drift and long bursts of load, and the
// odd rounds against the even ones, which sees what moves the host from
// one round to the next, as an interleaved comparison does. Each is an
// A/A comparison of a side with itself. 0 when there are fewer than four
// values or one is not positive.
func halvesSplit(values []float64) float64 {
	n := len(values)
	if n < 4 {
		return 0
	}
	for _, v := range values {
		if !(v > 0) {
			return 0
		}
	}
	h := n / 2
	first := slices.Clone(values[:h])
	second := slices.Clone(values[n-h:])
	var odd, even []float64
	for i, v := range values {
		if i%2 == 0 {
			even = append(even, v)
		} else {
			odd = append(odd, v)
		}
	}
	return max(math.Abs(math.Log(median(first)/median(second))), math.Abs(math.Log(median(odd)/median(even))))
}

// median is the median of x, which it sorts.
func median(x []float64) float64 {
	slices.Sort(x)
	n := len(x)
	if n%2 == 1 {
		return x[n/2]
	}
	return (x[n/2-1] + x[n/2]) / 2
}

// addNote adds note to the candidate's note once.
func (c *Candidate) addNote(note string) {
	switch {
	case c.Note == "":
		c.Note = note
	case !strings.Contains(c.Note, note):
		c.Note += "; " + note
	}
}

// noteRunNoise warns, when changes within the noise the run saw were
// called noisy, how many and how much the same code moved: the answer
// says what noise its verdicts were held to.
func noteRunNoise(cmp *Comparison) {
	n, most, where := 0, 0.0, ""
	for i := range cmp.Rows {
		row := &cmp.Rows[i]
		for j := range row.Candidates {
			c := &row.Candidates[j]
			if c.RunNoisePct == nil || !strings.Contains(c.Note, RunNoiseNote) {
				continue
			}
			n++
			if *c.RunNoisePct > most {
				most, where = *c.RunNoisePct, row.Benchmark
			}
		}
	}
	if n == 0 {
		return
	}
	cmp.Warnings = append(cmp.Warnings, fmt.Sprintf("%d change(s) within the noise this run saw called noisy, not better or worse: the same code moved by up to %.1f%% between halves of its rounds (%s)", n, most, where))
}
