// Package compare decides, benchmark by benchmark, what a candidate did to
// performance relative to a baseline, and sums the answer up over a suite.
//
// Its output, Comparison, is what every rendering reads and what --format
// json prints; the JSON field names are a contract other tools rely on.
package compare

import (
	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/provenance"
)

// Verdict is the decision for one benchmark on one candidate.
type Verdict string

// The verdicts. They are the words of the JSON contract.
const (
	Better Verdict = "better" // a significant change in the good direction
	Worse  Verdict = "worse"  // a significant change in the bad direction
	Same   Verdict = "same"   // no change the data can show
	Noisy  Verdict = "noisy"  // the data are too spread out to decide
)

// Presence says whether a benchmark exists on both sides.
type Presence string

// Presence values for a candidate's cell.
const (
	Both    Presence = ""        // measured on both sides
	Added   Presence = "added"   // only the candidate has it
	Removed Presence = "removed" // only the baseline has it
)

// Comparison is a baseline compared with one or more candidates.
type Comparison struct {
	// Base names the baseline variant; Candidates name the others, in
	// column order.
	Base       string   `json:"base_variant"`
	Candidates []string `json:"candidate_variants"`
	// Method names the verdict rules: "perfbot" or "benchstat".
	Method Method `json:"method,omitempty"`
	// Rows has one entry per benchmark, parameter set and metric.
	Rows []Row `json:"comparisons"`
	// Geomean summarizes each unit over the benchmarks that every side has.
	Geomean Geomean `json:"geomean"`
	// Summary counts verdicts per candidate.
	Summary []Tally `json:"summary"`
	// Instruments counts verdicts per candidate and instrument, when the
	// rows hold both wall times and simulated counts ("both").
	Instruments []InstrumentTally `json:"instruments,omitempty"`
	// Failures are sides or steps that failed; a comparison with failures
	// may still hold rows from the steps that worked.
	Failures []provenance.Failure `json:"failures,omitempty"`
	// Warnings are non-fatal problems worth showing the reader.
	Warnings []string `json:"warnings,omitempty"`
	// Cuts are runs whose output was cut at the output cap (see
	// NoteCuts).
	Cuts []provenance.Cut `json:"cuts,omitempty"`
	// Provenance says what was run, where and how.
	Provenance provenance.Record `json:"provenance"`
}

// Row is one benchmark under one parameter set, for one metric, across all
// variants.
type Row struct {
	Benchmark string          `json:"benchmark"`
	Group     string          `json:"group,omitempty"`
	Params    bench.Params    `json:"params"`
	Unit      string          `json:"unit"`
	Metric    string          `json:"metric,omitempty"`
	Better    bench.Direction `json:"better"`
	// Base is nil when the baseline lacks the benchmark.
	Base       *Cell       `json:"base"`
	Candidates []Candidate `json:"candidates"`
}

// Cell is one variant's measurement of a row.
type Cell struct {
	// Center is the median of the samples, or the tool's mean when only a
	// summary exists.
	Center float64 `json:"center"`
	// Lo and Hi bound the confidence interval around Center (95% for
	// samples; the tool's own confidence for summaries).
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
	// N is the number of measurements.
	N int `json:"n"`
	// Summarized is true when only a summary (mean, error, count) was
	// available, not the samples.
	Summarized bool `json:"summarized,omitempty"`
	// Samples are the raw values, kept for charts and the store.
	Samples []float64 `json:"-"`
	// Rounds are the same values in the order they were measured, for
	// paired tests over interleaved rounds; nil unless
	// VerdictOptions.Paired.
	Rounds []float64 `json:"-"`
	// Summary is the tool's own summary when there were no samples.
	Summary *bench.Summary `json:"-"`
	// Warnings are problems with this measurement.
	Warnings []string `json:"warnings,omitempty"`
	// split is how far the medians of the first and the second half of
	// the values, in the order measured, lie apart (|log ratio|): what
	// the host moved the same code by during the run. NaN when there are
	// fewer than four positive values.
	split float64
}

// Candidate is one candidate's cell of a row and its comparison with the
// baseline.
type Candidate struct {
	Variant string `json:"variant"`
	Cell
	// Presence is "added" or "removed" when only one side has the
	// benchmark; the fields below are then zero.
	Presence Presence `json:"presence,omitempty"`
	// DeltaPct is the change of the centre in percent (+ means larger).
	DeltaPct float64 `json:"delta_pct"`
	// Ratio is candidate centre / baseline centre.
	Ratio float64 `json:"ratio"`
	// P is the p-value of the test that decided.
	P float64 `json:"p"`
	// Alpha is the significance level P was held to.
	Alpha float64 `json:"alpha"`
	// Verdict is the decision; empty when Presence is set.
	Verdict Verdict `json:"verdict,omitempty"`
	// Test names the test that decided, such as "mann-whitney-u".
	Test string `json:"test,omitempty"`
	// MDEPct is the smallest change in percent that this data could have
	// detected, so that "same" says how small a change was ruled out.
	MDEPct float64 `json:"mde_pct"`
	// ChangeLoPct and ChangeHiPct bound the change in percent at the
	// comparison's confidence, from the interval that goes with the test:
	// Hodges-Lehmann/Moses for Mann-Whitney (on log values), the t
	// interval of the mean log ratio for the paired test, Welch's interval
	// of the difference of means. Nil when the data allow no interval
	// (such as 3 samples a side at 95%).
	ChangeLoPct *float64 `json:"change_lo_pct,omitempty"`
	ChangeHiPct *float64 `json:"change_hi_pct,omitempty"`
	// Significant is true when P < Alpha.
	Significant bool `json:"significant"`
	// NoiseThresholdPct is the noise threshold learned from History, when
	// one was applied: changes smaller than it are called same (or noisy
	// for an unstable benchmark).
	NoiseThresholdPct *float64 `json:"noise_threshold_pct,omitempty"`
	// NoiseHistory is how many past no-change comparisons it came from.
	NoiseHistory int `json:"noise_history,omitempty"`
	// RunNoisePct is the noise this run saw for a row of samples compared
	// by the rank test: how far the same code moved between halves of its
	// own rounds (first against second half, odd against even rounds),
	// the larger on either side, in percent. A change no larger than it is
	// noisy, not better or worse (see RunNoiseNote).
	RunNoisePct *float64 `json:"run_noise_pct,omitempty"`
	// Note explains the verdict further, such as OutsideNote.
	Note string `json:"note,omitempty"`
}

// Geomean is the geometric mean of each unit's centres over the benchmarks
// every side measured.
type Geomean struct {
	Units []GeomeanUnit `json:"units"`
}

// GeomeanUnit is the geomean of one unit (within one group and metric).
type GeomeanUnit struct {
	Group  string `json:"group,omitempty"`
	Metric string `json:"metric,omitempty"`
	Unit   string `json:"unit"`
	// Benchmarks is how many rows entered the geomean.
	Benchmarks int     `json:"benchmarks"`
	Base       float64 `json:"base"`
	// Candidates hold each candidate's geomean and its change.
	Candidates []GeomeanCandidate `json:"candidates"`
}

// GeomeanCandidate is one candidate's geomean of a unit.
type GeomeanCandidate struct {
	Variant  string  `json:"variant"`
	Value    float64 `json:"value"`
	Ratio    float64 `json:"ratio"`
	DeltaPct float64 `json:"delta_pct"`
	// LoPct and HiPct bound DeltaPct when an interval was computed.
	LoPct *float64 `json:"lo_pct,omitempty"`
	HiPct *float64 `json:"hi_pct,omitempty"`
}

// Tally counts one candidate's verdicts.
type Tally struct {
	Variant string `json:"variant"`
	Better  int    `json:"better"`
	Worse   int    `json:"worse"`
	Same    int    `json:"same"`
	Noisy   int    `json:"noisy"`
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
}

// Total sums the tallies of every candidate; its Variant is empty.
func (c *Comparison) Total() Tally {
	var sum Tally
	for _, t := range c.Summary {
		sum.Better += t.Better
		sum.Worse += t.Worse
		sum.Same += t.Same
		sum.Noisy += t.Noisy
		sum.Added += t.Added
		sum.Removed += t.Removed
	}
	return sum
}

// Key identifies the row as bench.Result.Key identifies the results it
// came from.
func (r *Row) Key() string {
	res := bench.Result{Group: r.Group, Benchmark: r.Benchmark, Params: r.Params, Metric: r.Metric, Unit: r.Unit}
	return res.Key()
}
