package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/provenance"
)

// noisyHostPct is the smallest change wall time must be able to detect
// on this host before a report stops suggesting cpu-sim.
const noisyHostPct = 3

// instrumentSummary says, under "both", what each instrument decided:
// " (walltime: 1 better, 1 same; cpu-sim: 2 same)".
func instrumentSummary(cmp *compare.Comparison, variant string) string {
	var parts []string
	for _, t := range cmp.Instruments {
		if t.Variant != variant {
			continue
		}
		var n []string
		for _, c := range []struct {
			k string
			v int
		}{{"better", t.Better}, {"worse", t.Worse}, {"same", t.Same}, {"noisy", t.Noisy}} {
			if c.v > 0 {
				n = append(n, fmt.Sprintf("%d %s", c.v, c.k))
			}
		}
		if len(n) > 0 {
			parts = append(parts, t.Instrument+": "+strings.Join(n, ", "))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (decided by " + strings.Join(parts, "; ") + ")"
}

// autoInstrumentNote names the instrument the job chose for each suite
// whose instrument was auto, and why: "instrument cpu-sim (auto): wall
// time on this host varied 57% during the probe, above the 5% to detect".
// Suites that chose alike for the same reason share one note; when they
// differ, each note names its suite.
func autoInstrumentNote(cmp *compare.Comparison) string {
	type choice struct{ instrument, label, why string }
	var order []choice
	suites := map[choice][]string{}
	for _, s := range cmp.Provenance.Suites {
		if s.InstrumentWhy == "" {
			continue
		}
		c := choice{s.Instrument, autoLabel(s), s.InstrumentWhy}
		if suites[c] == nil {
			order = append(order, c)
		}
		suites[c] = append(suites[c], s.Name)
	}
	var notes []string
	for _, c := range order {
		note := "instrument " + c.instrument + " (" + c.label + ")"
		if len(order) > 1 {
			note += " for suite " + strings.Join(suites[c], ", ")
		}
		notes = append(notes, note+": "+c.why)
	}
	return strings.Join(notes, "; ")
}

// noisyHostNote warns, for a comparison of wall times alone measured by a
// job that probed its host's noise, that the host hid changes below the
// median smallest detectable change of its rows that found no change, when that exceeds
// noisyHostPct, and suggests cpu-sim. Rows that no test could decide
// (infinite MDE: too few samples) say nothing about the host.
func noisyHostNote(cmp *compare.Comparison) string {
	if cmp.Provenance.Host.Noise == nil {
		return ""
	}
	var mdes []float64
	for i := range cmp.Rows {
		row := &cmp.Rows[i]
		switch compare.InstrumentOf(row) {
		case compare.InstrumentCPUSim:
			return ""
		case compare.InstrumentWallTime:
			for _, c := range row.Candidates {
				// Only rows that found no change say how small a change
				// the host let them rule out.
				if c.Presence == compare.Both && c.Test != "" && (c.Verdict == compare.Same || c.Verdict == compare.Noisy) && !math.IsInf(c.MDEPct, 0) && !math.IsNaN(c.MDEPct) {
					mdes = append(mdes, c.MDEPct)
				}
			}
		}
	}
	if len(mdes) == 0 {
		return ""
	}
	slices.Sort(mdes)
	med := mdes[len(mdes)/2]
	if med <= noisyHostPct {
		return ""
	}
	n := cmp.Provenance.Host.Noise
	note := fmt.Sprintf("this host is too noisy for wall time to detect changes below %.0f%% (calibration loop spread %.1f%%, CPU steal %.1f%%, load %.2f)",
		math.Ceil(med), n.LoopSpreadPct, n.StealPct, n.Load1)
	return note + "; instrument: cpu-sim counts instructions, which such noise does not move"
}

// autoLabel says how an auto instrument was had: "auto" when the run chose
// it, "auto, kept for branch main since 1a2b3c4d5e6f" when a tracked
// branch kept the choice of an earlier commit.
func autoLabel(s provenance.Suite) string {
	if s.InstrumentSince == "" {
		return "auto"
	}
	since := s.InstrumentSince
	if len(since) > 12 {
		since = since[:12]
	}
	return "auto, kept for branch " + s.InstrumentBranch + " since " + since
}
