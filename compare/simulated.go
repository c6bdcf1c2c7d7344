package compare

import (
	"fmt"
	"math"
	"slices"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/stats"
)

// TestTolerance names the test of simulated counts (see decideSimulated).
const TestTolerance = "tolerance"

// Instruments, as InstrumentOf names them.
const (
	InstrumentWallTime = "walltime"
	InstrumentCPUSim   = "cpu-sim"
)

const (
	// simSpreadFactor times the observed spread of repeats is the
	// tolerance of a simulated count.
	simSpreadFactor = 3
	// simFloorPct is the smallest tolerance: relinking the same code
	// moves instruction counts by hundredths of a percent (alignment,
	// addresses of the runtime's tables).
	simFloorPct = 0.1
	// simUnknownPct is the tolerance when a side has a single round and
	// no history: its spread is unknown.
	simUnknownPct = 1.0
)

// ScopeNote states what simulated counts cannot see; comparisons holding
// them carry it among their warnings.
const ScopeNote = "simulated counts (instrument cpu-sim: Valgrind's cachegrind, one simulated core) see the instructions the benchmark's own code executes " +
	"and a model of its cache misses, and count a Go benchmark's system calls (syscalls/op) but not the time they take; they do not see fsync or I/O waits, lock contention or work spread over several cores"

// OutsideNote is the note of a benchmark whose wall time changed while
// its simulated instruction count did not.
const OutsideNote = "time spent outside the CPU's instructions: I/O, syscalls or contention"

// InstrumentOf names the instrument that measured a row: "cpu-sim" for
// simulated counts, "walltime" for times, "" for everything else (bytes,
// allocations, counters).
func InstrumentOf(row *Row) string {
	if row.Metric == bench.Simulated {
		return InstrumentCPUSim
	}
	switch row.Unit {
	case "ns/op", "us/op", "ms/op", "s/op", "sec/op", "ns", "us", "ms", "s":
		return InstrumentWallTime
	}
	return ""
}

// decideSimulated compares simulated counts (instructions, estimated
// cycles), which repeat almost exactly: the spread of repeats of the same
// code is a few hundredths of a percent.
//
// A rank test does not suit such data: with the 3 rounds a side that
// suffice, Mann-Whitney's smallest p-value is 0.1, so it could never call
// even a doubling significant. A t-test goes wrong the other way: on
// near-zero variance it calls a 0.01% difference significant, a difference
// that merely relinking the code produces. What matters is whether the
// change exceeds what repeats of the same code vary by, so the change of
// the medians is held to a tolerance learned from the repeats:
//
//	tolerance = max(3 × spread, history, 0.1%)
//
// where spread is the larger relative range (max − min) / median of the
// two sides' repeats, and history is the noise threshold learned from
// earlier no-change comparisons of the benchmark (perfbot calibrate),
// when known. A difference of medians beyond three times the widest range
// either side showed is not something repeats of one side produced; the
// 0.1% floor covers code-layout effects the repeats cannot show. With a
// single round on a side the spread is unknown and the tolerance is
// max(history, 1%).
//
// The candidate's P is 0 for a change beyond the tolerance and 1 within
// it (there is no p-value); its interval spans every ratio of a candidate
// repeat to a baseline repeat, and its MDEPct is the tolerance.
func decideSimulated(base *Cell, cand *Candidate, better bench.Direction, opts Options, noise *stats.Noise) {
	cand.Test, cand.Alpha = TestTolerance, opts.Alpha
	if base.Center == 0 {
		cand.P, cand.MDEPct, cand.Verdict = math.NaN(), math.Inf(1), Noisy
		return
	}
	cand.Ratio = cand.Center / base.Center
	cand.DeltaPct = (cand.Ratio - 1) * 100
	a, b := values(base), values(&cand.Cell)
	tol := simUnknownPct
	if len(a) >= 2 && len(b) >= 2 {
		tol = max(simSpreadFactor*max(spreadPct(a), spreadPct(b)), simFloorPct)
	}
	if noise != nil {
		th := noise.ThresholdPct
		if len(a) >= 2 && len(b) >= 2 {
			tol = max(tol, th)
		} else {
			tol = max(th, simFloorPct)
		}
		cand.NoiseThresholdPct, cand.NoiseHistory = &th, noise.N
	}
	if slices.Min(a) > 0 {
		lo := 100 * (slices.Min(b)/slices.Max(a) - 1)
		hi := 100 * (slices.Max(b)/slices.Min(a) - 1)
		cand.setInterval(lo, hi)
	}
	cand.MDEPct = tol
	cand.Significant = math.Abs(cand.DeltaPct) > tol
	cand.P = 1
	switch {
	case cand.Significant:
		cand.P = 0
		improved := cand.Center < base.Center
		if better == bench.HigherIsBetter {
			improved = !improved
		}
		cand.Verdict = Worse
		if improved {
			cand.Verdict = Better
		}
	case tol >= opts.NoiseFloorPct:
		cand.Verdict = Noisy
	default:
		cand.Verdict = Same
	}
}

// spreadPct is the range of x in percent of its median.
func spreadPct(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	if med == 0 {
		return math.Inf(1)
	}
	return 100 * (s[len(s)-1] - s[0]) / math.Abs(med)
}

// InstrumentTally counts one candidate's verdicts of one instrument.
type InstrumentTally struct {
	Variant    string `json:"variant"`
	Instrument string `json:"instrument"`
	Better     int    `json:"better"`
	Worse      int    `json:"worse"`
	Same       int    `json:"same"`
	Noisy      int    `json:"noisy"`
}

// instruments tallies the verdicts per instrument when the comparison
// holds rows of both wall time and simulated counts, adds the note of
// benchmarks whose wall time changed while their instruction count did
// not, and states the scope of simulated counts.
func instruments(cmp *Comparison) {
	type key struct{ variant, instrument string }
	counts := map[key]*InstrumentTally{}
	var order []key
	seen := map[string]bool{}
	// sim maps a benchmark to its simulated instruction count's row.
	sim := map[string]*Row{}
	for i := range cmp.Rows {
		row := &cmp.Rows[i]
		if row.Metric == bench.Simulated && (row.Unit == "instructions/op" || row.Unit == "instructions") {
			sim[row.Group+"\x00"+row.Benchmark+"\x00"+row.Params.String()] = row
		}
	}
	for i := range cmp.Rows {
		row := &cmp.Rows[i]
		inst := InstrumentOf(row)
		if inst == "" {
			continue
		}
		seen[inst] = true
		for _, c := range row.Candidates {
			k := key{c.Variant, inst}
			t := counts[k]
			if t == nil {
				t = &InstrumentTally{Variant: c.Variant, Instrument: inst}
				counts[k] = t
				order = append(order, k)
			}
			switch {
			case c.Presence != Both:
			case c.Verdict == Better:
				t.Better++
			case c.Verdict == Worse:
				t.Worse++
			case c.Verdict == Noisy:
				t.Noisy++
			default:
				t.Same++
			}
		}
	}
	if seen[InstrumentCPUSim] {
		cmp.Warnings = append(cmp.Warnings, ScopeNote)
	}
	if !seen[InstrumentCPUSim] || !seen[InstrumentWallTime] {
		return
	}
	slices.SortStableFunc(order, func(a, b key) int {
		if a.variant != b.variant {
			return slices.Index(cmp.Candidates, a.variant) - slices.Index(cmp.Candidates, b.variant)
		}
		if a.instrument == InstrumentWallTime {
			return -1
		}
		if b.instrument == InstrumentWallTime {
			return 1
		}
		return 0
	})
	for _, k := range order {
		cmp.Instruments = append(cmp.Instruments, *counts[k])
	}
	for i := range cmp.Rows {
		row := &cmp.Rows[i]
		if InstrumentOf(row) != InstrumentWallTime {
			continue
		}
		srow := sim[row.Group+"\x00"+row.Benchmark+"\x00"+row.Params.String()]
		if srow == nil {
			continue
		}
		for ci := range row.Candidates {
			c := &row.Candidates[ci]
			if c.Verdict != Better && c.Verdict != Worse {
				continue
			}
			for _, sc := range srow.Candidates {
				if sc.Variant == c.Variant && sc.Verdict == Same {
					c.Note = OutsideNote
					cmp.Warnings = append(cmp.Warnings, fmt.Sprintf("%s on %s: wall time %s (%+.1f%%) while its simulated instruction count is the same (%+.2f%%): %s",
						row.Benchmark, c.Variant, c.Verdict, c.DeltaPct, sc.DeltaPct, OutsideNote))
				}
			}
		}
	}
}
