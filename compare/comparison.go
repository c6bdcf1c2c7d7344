// Package compare decides, benchmark by benchmark, what a candidate did to
// performance relative to a baseline, and sums the answer up over a suite.
//
// Its output, Comparison, is what every rendering reads and what --format
// json prints; the JSON field names are a contract other tools rely on.
package compare

import (
	"time"

	"github.com/perfbot/perfbot/bench"
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
	Failures []Failure `json:"failures,omitempty"`
	// Warnings are non-fatal problems worth showing the reader.
	Warnings []string `json:"warnings,omitempty"`
	// Cuts are runs whose output was cut at the output cap (see
	// NoteCuts).
	Cuts []Cut `json:"cuts,omitempty"`
	// Provenance says what was run, where and how.
	Provenance Provenance `json:"provenance"`
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

// Failure is a side or step that failed.
type Failure struct {
	Variant string `json:"variant"`
	// Stage is "checkout", "patch", "build", "run", "parse", "setup" or
	// "teardown".
	Stage   string `json:"stage"`
	Message string `json:"message"`
	// LogTail is the end of the failing command's output.
	LogTail string `json:"log_tail,omitempty"`
	// Limit names the limit that ended the command, if one did.
	Limit string `json:"limit,omitempty"`
}

// Provenance records what was compared, where and how.
type Provenance struct {
	Repo     string    `json:"repo,omitempty"`
	Sides    []Side    `json:"sides"`
	Host     Host      `json:"host"`
	Suites   []Suite   `json:"suites,omitempty"`
	RunOrder []string  `json:"run_order,omitempty"`
	Started  time.Time `json:"started,omitzero"`
	Finished time.Time `json:"finished,omitzero"`
	// Tool is perfbot's own version.
	Tool string `json:"tool,omitempty"`
	// Sandbox says how commands were isolated ("bubblewrap", "none").
	Sandbox string `json:"sandbox,omitempty"`
	// Seed seeded the random order of the rounds; the same seed gives
	// the same order again.
	Seed uint64 `json:"seed,omitempty"`
	// Timing says where the job's time went, up to its statistics.
	Timing *Timing `json:"timing,omitempty"`
}

// Side is one variant: what code, under what settings.
type Side struct {
	Variant string `json:"variant"`
	Ref     string `json:"ref,omitempty"`
	Commit  string `json:"commit,omitempty"`
	// Why says why Commit is the side's when Ref did not choose it, as
	// when a patch's base-commit chose the baseline.
	Why string `json:"why,omitempty"`
	// Patch is the patch file or URL applied on top of Ref, if any.
	Patch        string `json:"patch,omitempty"`
	PatchSubject string `json:"patch_subject,omitempty"`
	// Settings describes a configuration variant (environment, flags).
	Settings []string `json:"settings,omitempty"`
	// Files are the ones a source supplied, such as the report's inputs.
	Files []string `json:"files,omitempty"`
}

// Host describes the machine that ran the benchmarks.
type Host struct {
	Name      string   `json:"name,omitempty"`
	OS        string   `json:"os,omitempty"`
	Arch      string   `json:"arch,omitempty"`
	CPU       string   `json:"cpu,omitempty"`
	Cores     int      `json:"cores,omitempty"`
	Kernel    string   `json:"kernel,omitempty"`
	Toolchain []string `json:"toolchain,omitempty"`
	// Noise is the host's noise measured when the job started.
	Noise *HostNoise `json:"noise,omitempty"`
}

// HostNoise is a probe of the host's noise: how much a fixed calibration
// loop's time varied over a few runs, how much CPU time the hypervisor
// stole meanwhile, and the load average.
type HostNoise struct {
	// LoopSpreadPct is the range of the loop's times over their median.
	LoopSpreadPct float64 `json:"loop_spread_pct"`
	// LoopMedian is the loop's median time.
	LoopMedian string `json:"loop_median,omitempty"`
	// Runs is how many times the loop ran.
	Runs int `json:"runs"`
	// StealPct is the share of CPU time stolen while the probe ran.
	StealPct float64 `json:"steal_pct"`
	// Load1 is the one-minute load average.
	Load1 float64 `json:"load1"`
}

// Suite records how one suite was run.
type Suite struct {
	Name     string   `json:"name"`
	Commands []string `json:"commands"`
	Rounds   int      `json:"rounds"`
	// Instrument is what measured the suite: walltime, cpu-sim or both.
	Instrument string `json:"instrument,omitempty"`
	// InstrumentWhy says, when the instrument was chosen for the host
	// (auto), why: "wall time on this host varied 57% during the probe,
	// above the 5% to detect".
	InstrumentWhy string `json:"instrument_why,omitempty"`
	// Warmup is the number of discarded rounds per side before them.
	Warmup int `json:"warmup,omitempty"`
	// Stopped says why adaptive sampling added no more rounds: "decided"
	// (every benchmark decided), "max_count" or "budget".
	Stopped string `json:"stopped,omitempty"`
	// Runs is, under adaptive sampling, how many benchmark runs each side
	// made: rounds that ran only the undecided benchmarks count what they
	// ran (a Go top-level benchmark or a matrix point is one run).
	Runs int `json:"runs,omitempty"`
	// Isolation says, for a suite whose sides keep processes between
	// their rounds (the servers of setup:), how those of the other sides
	// were kept off the CPU during each side's rounds: "frozen (cgroup v2
	// freezer), CPU time from cgroup v2 cpu.stat", or why they could not
	// be frozen and how their CPU time was counted.
	Isolation string `json:"isolation,omitempty"`
	// ForeignCPUMs is the CPU time in milliseconds the other sides used
	// during the suite's rounds, reruns included; nil when not measured.
	ForeignCPUMs *float64 `json:"foreign_cpu_ms,omitempty"`
	// Rerun counts the rounds run again because the other sides used more
	// CPU during them than ForeignCPUBoundPct of their wall time.
	Rerun int `json:"rounds_rerun,omitempty"`
	// Unfair counts the rounds kept although the other sides used more
	// than the bound during them (their reruns did too): the suite could
	// not be measured fairly, and its rows' verdicts say so.
	Unfair int `json:"rounds_unfair,omitempty"`
}

// ForeignCPUBoundPct is the share of a round's wall time that the other
// sides may spend on the CPU during it before the round is run again.
const ForeignCPUBoundPct = 2

// Key identifies the row as bench.Result.Key identifies the results it
// came from.
func (r *Row) Key() string {
	res := bench.Result{Group: r.Group, Benchmark: r.Benchmark, Params: r.Params, Metric: r.Metric, Unit: r.Unit}
	return res.Key()
}
