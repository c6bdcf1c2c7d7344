package provenance

// Cut records a run whose output was cut at the sandbox's output cap: the
// results after the cut are missing from its side, and a comparison would
// otherwise call them removed (or, on the baseline, added).
type Cut struct {
	Variant string `json:"variant"`
	// Run names the run whose output was cut.
	Run string `json:"run"`
	// Kept and Dropped are the bytes of output kept and discarded.
	Kept    int64 `json:"kept_bytes"`
	Dropped int64 `json:"dropped_bytes"`
	// Last is the last benchmark read before the cut ("" when none was).
	Last string `json:"last_benchmark,omitempty"`
	// Lost are the benchmarks (with parameters and metric) that other
	// sides measured and this side lacks, filled in by NoteCuts.
	Lost []string `json:"lost,omitempty"`
}
