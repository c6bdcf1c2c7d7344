package report

import (
	"fmt"
	"strings"

	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/provenance"
)

// provenanceFacts describes where the numbers came from, one fact a line:
// commits, patch, settings, host, CPU, toolchain, commands, run order.
func provenanceFacts(p *provenance.Record) []Fact {
	var fs []Fact
	add := func(label, value string, code bool) {
		if value != "" {
			fs = append(fs, Fact{Label: label, Value: oneLine(value), Code: code})
		}
	}
	add("repository", p.Repo, true)
	for _, s := range p.Sides {
		code := strings.TrimSpace(s.Ref + " " + s.Commit)
		add(s.Variant, code, true)
		add("why "+s.Variant, s.Why, false)
		file, subj := s.Variant+" patch", s.Variant+" patch subject"
		if s.Variant == "patch" {
			file, subj = "patch file", "patch subject"
		}
		add(file, s.Patch, true)
		add(subj, s.PatchSubject, false)
		if len(s.Settings) > 0 {
			add(s.Variant+" settings", strings.Join(s.Settings, " "), true)
		}
		if len(s.Files) > 0 {
			add(s.Variant+" files", strings.Join(s.Files, ", "), true)
		}
	}
	h := p.Host
	host := h.Name
	if h.OS != "" {
		host = strings.TrimSpace(host + " " + h.OS + "/" + h.Arch)
	}
	if h.Kernel != "" {
		host += ", kernel " + h.Kernel
	}
	add("host", strings.TrimPrefix(host, ", "), false)
	cpu := h.CPU
	if h.Cores > 0 {
		cpu = strings.TrimPrefix(fmt.Sprintf("%s, %d cores", cpu, h.Cores), ", ")
	}
	add("CPU", cpu, false)
	add("toolchain", strings.Join(h.Toolchain, ", "), false)
	if n := h.Noise; n != nil {
		add("host noise", fmt.Sprintf("calibration loop spread %.1f%% over %d runs, CPU steal %.1f%%, load %.2f", n.LoopSpreadPct, n.Runs, n.StealPct, n.Load1), false)
	}
	for _, s := range p.Suites {
		for _, c := range s.Commands {
			label := fmt.Sprintf("suite %s (%d rounds)", s.Name, s.Rounds)
			if s.Runs > 0 {
				label = fmt.Sprintf("suite %s (up to %d rounds)", s.Name, s.Rounds)
			}
			if s.Rounds == 1 {
				label = fmt.Sprintf("suite %s (1 round)", s.Name)
			}
			add(label, c, true)
		}
	}
	for _, s := range p.Suites {
		var notes []string
		if s.InstrumentWhy != "" {
			notes = append(notes, "instrument "+s.Instrument+" ("+autoLabel(s)+"): "+s.InstrumentWhy)
		}
		if s.Warmup > 0 {
			notes = append(notes, fmt.Sprintf("%d warm-up round(s) per side discarded", s.Warmup))
		}
		if s.Stopped != "" {
			note := "adaptive sampling stopped: " + s.Stopped
			if s.Runs > 0 {
				note += fmt.Sprintf(" (%d benchmark runs per side; the n of each row says how many it got)", s.Runs)
			}
			notes = append(notes, note)
		}
		if s.Isolation != "" {
			notes = append(notes, isolationNote(s))
		}
		if len(notes) > 0 {
			add("suite "+s.Name, strings.Join(notes, "; "), false)
		}
	}
	add("run order", strings.Join(p.RunOrder, " "), false)
	if p.Seed != 0 {
		add("order seed", fmt.Sprintf("%d (--seed %d repeats this order)", p.Seed, p.Seed), false)
	}
	add("sandbox", p.Sandbox, false)
	if !p.Started.IsZero() {
		v := p.Started.UTC().Format("2006-01-02 15:04:05 UTC")
		if !p.Finished.IsZero() {
			v += fmt.Sprintf(", took %s", p.Finished.Sub(p.Started).Round(1e9))
		}
		add("started", v, false)
	}
	if t := p.Timing; t != nil && t.Wall > 0 {
		add("time", timingFact(t), false)
	}
	add("perfbot", p.Tool, false)
	return fs
}

// isolationNote says how the other sides' servers were kept off the CPU
// during each side's rounds, and what they used anyway.
func isolationNote(s provenance.Suite) string {
	note := "other sides during each side's rounds: " + s.Isolation + "; foreign CPU during rounds: "
	if s.ForeignCPUMs == nil {
		note += "not measured"
	} else {
		note += fmt.Sprintf("%.1f ms", *s.ForeignCPUMs)
	}
	note += fmt.Sprintf(", %d round(s) rerun", s.Rerun)
	if s.Unfair > 0 {
		note += fmt.Sprintf(", %d round(s) over the %d%% bound kept: not measured fairly", s.Unfair, provenance.ForeignCPUBoundPct)
	}
	return note
}

// timingFact says in one line where a job's wall time went: benchmark
// commands, builds, and perfbot's overhead with its stages.
func timingFact(t *provenance.Timing) string {
	over, pct := t.Overhead()
	v := fmt.Sprintf("%s wall: benchmark commands %s, builds and setup %s, overhead %s (%.1f%%)",
		formatSeconds(t.Wall), formatSeconds(t.Seconds(provenance.StageBenchmark)), formatSeconds(t.Seconds(provenance.StageBuild)), formatSeconds(over), pct)
	var parts []string
	named := 0.0
	for _, st := range t.Stages {
		if st.Kind != provenance.StageOverhead {
			continue
		}
		named += st.Seconds
		parts = append(parts, st.Name+" "+formatSeconds(st.Seconds))
	}
	if rest := over - named; rest >= 0.0005 {
		parts = append(parts, "other "+formatSeconds(rest))
	}
	if len(parts) > 0 {
		v += ": " + strings.Join(parts, ", ")
	}
	return v
}

// formatSeconds writes a duration in seconds with three significant
// figures at most and millisecond resolution ("5.71 s", "0.042 s").
func formatSeconds(s float64) string {
	switch {
	case s >= 100:
		return fmt.Sprintf("%.0f s", s)
	case s >= 10:
		return fmt.Sprintf("%.1f s", s)
	case s >= 1:
		return fmt.Sprintf("%.2f s", s)
	}
	return fmt.Sprintf("%.3f s", s)
}

// patchSubject is the patch subject of the first candidate that has one.
func patchSubject(c *compare.Comparison) string {
	for _, s := range c.Provenance.Sides {
		if s.Variant != c.Base && s.PatchSubject != "" {
			return oneLine(s.PatchSubject)
		}
	}
	return ""
}

// subject is the patch subject, or else the variants compared.
func subject(c *compare.Comparison) string {
	if s := patchSubject(c); s != "" {
		return s
	}
	if len(c.Candidates) == 0 {
		return oneLine(c.Base)
	}
	return oneLine(strings.Join(c.Candidates, ", ") + " vs " + c.Base)
}
