// Package provenance records how a comparison's samples were taken: which
// code on which sides, on what host and how noisy it was, how each suite
// ran (rounds, instrument, fairness), where the job's time went, and which
// steps failed or had their output cut.
//
// These are facts about a run, not statistics: the runner writes them while
// it measures, and compare, the renderings and the store carry them on.
// They live below both, in a package of their own, so that the runner
// records what it did without importing the package that decides what the
// samples mean, and so that bench stays the benchmark key and its results.
// The JSON field names are part of compare's --format json contract.
package provenance

import "time"

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

// Record says what was compared, where and how.
type Record struct {
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
	// InstrumentBranch and InstrumentSince, when set, say that the
	// instrument was not chosen by this run but kept for a tracked branch:
	// the branch, and the commit whose run chose it (InstrumentWhy is that
	// run's reason).
	InstrumentBranch string `json:"instrument_branch,omitempty"`
	InstrumentSince  string `json:"instrument_since,omitempty"`
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
