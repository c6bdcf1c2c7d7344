package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/compare"
)

// Overall marks of a comparison, the first word a reader sees.
const (
	MarkBetter = "better"  // something got better, nothing worse
	MarkWorse  = "worse"   // something got worse, nothing better
	MarkMixed  = "mixed"   // some of each
	MarkSame   = "same"    // no significant change
	MarkNoisy  = "noisy"   // no significant change, and some rows too noisy to tell
	MarkFailed = "failed"  // nothing could be compared
	MarkNone   = "nothing" // no rows and no failure
)

// Headline is the one line that states the outcome: the overall mark, the
// largest significant changes with their metrics, and the commits compared.
type Headline struct {
	// Mark is one of the Mark constants.
	Mark string
	// Changes reads "Append -97% time, +8 B/op, +1 alloc; Checksum noisy".
	Changes string
	// Commits reads "base 4f2ec42 → patch 0f4ccfd", or the variants when
	// no commit is known.
	Commits string
}

// headline limits: benchmarks named, changes per benchmark.
const (
	headlineBenchmarks = 3
	headlineChanges    = 3
	headlineUnchanged  = 2
)

// headlineOf sums a comparison up in one line.
func headlineOf(c *compare.Comparison) Headline {
	h := Headline{Mark: overallMark(c), Commits: commitsOf(c)}
	if h.Mark == MarkFailed || h.Mark == MarkNone {
		h.Changes = "nothing compared"
		if len(c.Failures) > 0 {
			var fs []string
			for _, f := range c.Failures {
				fs = append(fs, f.Variant+" "+f.Stage)
			}
			h.Changes = "nothing compared: " + strings.Join(fs, ", ") + " failed"
		}
		return h
	}
	var parts []string
	for _, v := range c.Candidates {
		s := candidateHeadline(c, v)
		if len(c.Candidates) > 1 {
			s = v + ": " + s
		}
		parts = append(parts, s)
	}
	h.Changes = oneLine(strings.Join(parts, " | "))
	return h
}

// overallMark is the mark of the whole comparison, over every candidate.
func overallMark(c *compare.Comparison) string {
	if State(c) == answer.StateError {
		if len(c.Failures) > 0 {
			return MarkFailed
		}
		return MarkNone
	}
	total := c.Total()
	better, worse, noisy := total.Better, total.Worse, total.Noisy
	switch {
	case better > 0 && worse > 0:
		return MarkMixed
	case worse > 0:
		return MarkWorse
	case better > 0:
		return MarkBetter
	case noisy > 0:
		return MarkNoisy
	}
	return MarkSame
}

// benchChanges are one benchmark's significant changes for one candidate.
type benchChanges struct {
	name    string
	changes []string
	size    float64 // the largest change, as |log ratio|
	noisy   bool
	any     bool // compared on both sides
	timed   bool // has a time row
	// confirmed: a second run found a change worse too (compare.ConfirmedNote);
	// unconfirmed: it was called noisy because a second run did not.
	confirmed, unconfirmed bool
}

// candidateHeadline lists the candidate's largest changes, benchmark by
// benchmark, then the benchmarks without one.
func candidateHeadline(c *compare.Comparison, variant string) string {
	var order []string
	per := map[string]*benchChanges{}
	var last *compare.Row // the row b was found for
	var b *benchChanges
	for i := range c.Rows {
		row := &c.Rows[i]
		cand := candidateOf(row, variant)
		if cand == nil || cand.Presence != compare.Both || row.Base == nil {
			continue
		}
		// The units of one benchmark come in a run of rows: look it up
		// once for the run.
		if last == nil || row.Benchmark != last.Benchmark || row.Group != last.Group || !slices.Equal(row.Params, last.Params) {
			name := shortBenchmark(row.Benchmark)
			if len(row.Params) > 0 {
				name += " " + row.Params.String()
			}
			key := row.Group + "\x00" + name
			b = per[key]
			if b == nil {
				b = &benchChanges{name: name}
				per[key] = b
				order = append(order, key)
			}
		}
		last = row
		b.any = true
		if strings.HasSuffix(row.Unit, "-"+bench.SyscallsPerOp) {
			continue // one kind's system calls: the total says it first
		}
		label := metricLabel(row)
		if label == "time" {
			b.timed = true
		}
		switch cand.Verdict {
		case compare.Noisy:
			b.noisy = true
			b.unconfirmed = b.unconfirmed || strings.Contains(cand.Note, compare.UnconfirmedNote)
		case compare.Better, compare.Worse:
			if (row.Unit == "B/s" || row.Unit == "MB/s") && b.timed {
				continue // throughput of a timed benchmark says the same again
			}
			if cand.Verdict == compare.Worse && strings.Contains(cand.Note, compare.ConfirmedNote) {
				b.confirmed = true
			}
			b.changes = append(b.changes, changeText(row, cand, label))
			b.size = math.Max(b.size, changeSize(row.Base, cand))
		}
	}
	var changed, quiet, noisy, unconfirmed []*benchChanges
	for _, k := range order {
		b := per[k]
		switch {
		case len(b.changes) > 0:
			changed = append(changed, b)
		case b.unconfirmed:
			unconfirmed = append(unconfirmed, b)
		case b.noisy:
			noisy = append(noisy, b)
		case b.any:
			quiet = append(quiet, b)
		}
	}
	slices.SortStableFunc(changed, func(a, b *benchChanges) int {
		switch {
		case a.size > b.size:
			return -1
		case a.size < b.size:
			return 1
		}
		return 0
	})
	var parts []string
	for i, b := range changed {
		if i == headlineBenchmarks {
			parts = append(parts, fmt.Sprintf("%d more changed", len(changed)-i))
			break
		}
		cs := b.changes
		if len(cs) > headlineChanges {
			cs = append(cs[:headlineChanges:headlineChanges], "…")
		}
		part := b.name + " " + strings.Join(cs, ", ")
		if b.confirmed {
			part += " (" + compare.ConfirmedNote + ")"
		}
		parts = append(parts, part)
	}
	if len(changed) == 0 {
		parts = append(parts, "no significant change")
	}
	parts = appendNamed(parts, quiet, "unchanged")
	parts = appendNamed(parts, noisy, "noisy")
	parts = appendNamed(parts, unconfirmed, "noisy (a rerun did not confirm it worse)")
	return strings.Join(parts, "; ")
}

// appendNamed names a few benchmarks ("Checksum unchanged") or counts many
// ("12 unchanged").
func appendNamed(parts []string, bs []*benchChanges, word string) []string {
	switch {
	case len(bs) == 0:
		return parts
	case len(bs) <= headlineUnchanged:
		var names []string
		for _, b := range bs {
			names = append(names, b.name)
		}
		return append(parts, strings.Join(names, ", ")+" "+word)
	}
	return append(parts, fmt.Sprintf("%d %s", len(bs), word))
}

// candidateOf is the variant's candidate of a row, nil when it has none.
func candidateOf(row *compare.Row, variant string) *compare.Candidate {
	for i := range row.Candidates {
		if row.Candidates[i].Variant == variant {
			return &row.Candidates[i]
		}
	}
	return nil
}

// metricLabel names what a row measures in a few letters: "time" for
// sec/op, what was counted for a simulated row ("instructions",
// "est-cycles"), the metric when the row has one, else the unit.
func metricLabel(row *compare.Row) string {
	switch row.Unit {
	case "ns/op", "sec/op", "s/op":
		return "time"
	}
	if row.Metric == bench.Simulated && row.Unit != "" {
		return strings.TrimSuffix(row.Unit, "/op")
	}
	if row.Metric != "" {
		return row.Metric
	}
	return row.Unit
}

// changeText is one change: "-97% time", "38.8x B/s", "+8 B/op".
func changeText(row *compare.Row, c *compare.Candidate, label string) string {
	base := row.Base.Center
	switch {
	case base == 0:
		return absoluteDelta(c.Center-base, row.Unit)
	case c.Ratio >= 100:
		return fmt.Sprintf("%.0fx %s", c.Ratio, label)
	case c.DeltaPct >= 100:
		return fmt.Sprintf("%.1fx %s", c.Ratio, label)
	case math.Abs(c.DeltaPct) >= 10:
		return fmt.Sprintf("%+.0f%% %s", c.DeltaPct, label)
	}
	return fmt.Sprintf("%+.1f%% %s", c.DeltaPct, label)
}

// changeSize orders changes by size: |log ratio|, a change from zero first.
func changeSize(base *compare.Cell, c *compare.Candidate) float64 {
	if base.Center == 0 || c.Center == 0 || base.Center < 0 != (c.Center < 0) {
		return math.Inf(1)
	}
	return math.Abs(math.Log(c.Center / base.Center))
}

// commitsOf reads "base 4f2ec42 → patch 0f4ccfd" from the provenance,
// "" when no side names a commit.
func commitsOf(c *compare.Comparison) string {
	var parts []string
	any := false
	for _, s := range c.Provenance.Sides {
		id := s.Commit
		if len(id) > 10 {
			id = id[:10]
		}
		any = any || id != ""
		if id == "" {
			id = s.Ref
		}
		if id == "" || id == s.Variant {
			parts = append(parts, s.Variant)
			continue
		}
		parts = append(parts, s.Variant+" "+id)
	}
	if !any {
		return ""
	}
	return oneLine(strings.Join(parts, " → "))
}

// shortBenchmark names a benchmark briefly for the headline: without Go's
// GOMAXPROCS suffix ("Append" for "Append-2"), and a long dotted Java
// name by its last two parts ("MemFetchTasksBenchmark.run").
func shortBenchmark(name string) string {
	name = bench.TrimProcs(name)
	if parts := strings.Split(name, "."); len(parts) > 2 && len(name) > 24 {
		name = strings.Join(parts[len(parts)-2:], ".")
	}
	return name
}
