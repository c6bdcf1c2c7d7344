package config

// The statistics' defaults, defined here once: compare, the job and every
// command's flags take them from these constants.
const (
	// DefaultAlpha is the significance level of a verdict.
	DefaultAlpha = 0.05
	// DefaultNoiseFloorPct is the change, in percent, that a row without
	// a significant change must rule out to be called the same (else it
	// is noisy); adaptive sampling runs a benchmark until it does.
	DefaultNoiseFloorPct = 5
)
