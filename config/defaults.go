package config

import "time"

// The statistics' defaults, defined here once: compare, the job and every
// command's flags take them from these constants.
const (
	// DefaultAlpha is the significance level of a verdict.
	DefaultAlpha = 0.05
	// DefaultNoiseFloorPct is the change, in percent, that a row without
	// a significant change must rule out to be called the same (else it
	// is noisy); adaptive sampling runs a benchmark until it does.
	DefaultNoiseFloorPct = 5
	// DefaultTrackAlpha is the significance level of a tracked branch's
	// change points (track.alpha).
	DefaultTrackAlpha = 0.001
	// DefaultTrackMinChangePct is the smallest change point reported, in
	// percent (track.min_change).
	DefaultTrackMinChangePct = 5
)

// A suite's sampling defaults, defined here once: the runner applies them,
// and the command line's help and the config's documentation name them.
const (
	// A Go suite that sets none of count, max_count and budget samples
	// adaptively: every benchmark gets DefaultGoCount rounds a side, the
	// undecided ones more, up to DefaultGoMaxCount, while the suite has
	// spent fewer benchmark runs than DefaultGoBudgetRounds fixed rounds
	// would (Budget{Rounds: DefaultGoBudgetRounds}, "10x").
	DefaultGoCount        = 6
	DefaultGoMaxCount     = 40
	DefaultGoBudgetRounds = 10
	// DefaultGoFixedCount is the count of a Go suite that sets max_count
	// or budget but no count; DefaultCommandCount a command suite's.
	DefaultGoFixedCount = 10
	DefaultCommandCount = 5
	// A cpu-sim suite that sets none of count, max_count and budget runs
	// DefaultSimCount rounds a side, the undecided benchmarks up to
	// DefaultSimMaxCount.
	DefaultSimCount    = 2
	DefaultSimMaxCount = 6
)

// A suite's time limits when it sets none.
const (
	// DefaultTimeout bounds each benchmark command (suite timeout).
	DefaultTimeout = 10 * time.Minute
	// DefaultBuildTimeout bounds the build (suite build_timeout).
	DefaultBuildTimeout = 30 * time.Minute
)
