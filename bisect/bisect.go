// Package bisect finds which commit of a series (the first-parent commits
// between a base and a head, such as a pull request's or a mail series')
// is responsible for a benchmark's change between the two ends.
//
// The change itself comes from a comparison of base and head. Search then
// measures only the benchmarks that moved, commit by commit: a series of up
// to Options.LinearMax commits step by step (each commit against its
// parent), a longer one by halving (the endpoints of each half compared,
// and only the halves where a benchmark moved searched further), until each
// moved benchmark's change is pinned to single steps. Every measurement is
// an ordinary comparison, with the same tests and adaptive sampling as
// perfbot compare, handed in as a Measure function.
//
// A commit is responsible for a benchmark's change when its own step moved
// the benchmark significantly, in the same direction, by at least Share
// of the whole change (measured as a log ratio, so two commits each making
// a benchmark three times slower hold half of a nine times slowdown each).
// Otherwise no single commit is: the change is spread over several, or no
// step moved it significantly.
package bisect

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/compare"
)

// Measure compares the code at commit from (the baseline) with the code
// at commit to (the only candidate), running only the Go benchmarks named
// in benchmarks (top-level names without "Benchmark", empty: all).
type Measure func(ctx context.Context, from, to string, benchmarks []string) (*compare.Comparison, error)

// Options tune the search.
type Options struct {
	// MinChangePct is the smallest overall change, in percent either way,
	// worth bisecting (0: every significant change).
	MinChangePct float64
	// LinearMax is the longest series measured step by step (default 4);
	// a longer one is halved.
	LinearMax int
	// Share is the part of the whole change (as a log ratio) a commit's
	// own step must hold to be responsible (default 2/3).
	Share float64
}

// Search bisects the series commits (oldest first; commits[0]'s parent is
// base) for every benchmark that overall, base against head, moved
// significantly. overall is that comparison, with one candidate.
func Search(ctx context.Context, base string, commits []Commit, overall *compare.Comparison, measure Measure, o Options) (*Result, error) {
	if o.LinearMax <= 0 {
		o.LinearMax = 4
	}
	if o.Share <= 0 || o.Share > 1 {
		o.Share = 2.0 / 3
	}
	res := &Result{Base: base, Commits: commits, MinChangePct: o.MinChangePct}
	if len(commits) > 0 {
		res.Head = commits[len(commits)-1].Hash
	}
	moved := movedRows(overall, o.MinChangePct)
	if len(moved) == 0 || len(commits) == 0 {
		return res, nil
	}
	s := &search{ctx: ctx, base: base, commits: commits, measure: measure,
		steps: map[Key]map[int]cell{}, unchanged: map[Key]map[int]bool{}, res: res}
	keys := make([]Key, 0, len(moved))
	for k := range moved {
		keys = append(keys, k)
		s.steps[k] = map[int]cell{}
		s.unchanged[k] = map[int]bool{}
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].less(keys[j]) })
	var err error
	if len(commits) <= o.LinearMax {
		err = s.linear(keys)
	} else {
		err = s.halve(0, len(commits), keys)
	}
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		res.Benchmarks = append(res.Benchmarks, s.finding(k, moved[k], o.Share))
	}
	return res, nil
}

// Moved reports whether any benchmark of cmp moved significantly, by at
// least minPct percent either way: whether a series is worth bisecting.
func Moved(cmp *compare.Comparison, minPct float64) bool {
	return len(movedRows(cmp, minPct)) > 0
}

// movedRows are the rows of overall whose candidate moved significantly,
// by at least minPct.
func movedRows(overall *compare.Comparison, minPct float64) map[Key]moved {
	out := map[Key]moved{}
	if overall == nil {
		return out
	}
	for i := range overall.Rows {
		row := &overall.Rows[i]
		if row.Base == nil || len(row.Candidates) == 0 {
			continue
		}
		c := row.Candidates[0]
		if !changed(c) || math.Abs(c.DeltaPct) < minPct || !(c.Ratio > 0) {
			continue
		}
		out[keyOf(row)] = moved{row: row, cand: c}
	}
	return out
}

type moved struct {
	row  *compare.Row
	cand compare.Candidate
}

// changed reports whether a cell holds a significant change: better or
// worse, both sides measured.
func changed(c compare.Candidate) bool {
	return c.Presence == compare.Both && (c.Verdict == compare.Better || c.Verdict == compare.Worse) && c.Ratio > 0
}

type search struct {
	ctx     context.Context
	base    string
	commits []Commit
	measure Measure
	// steps holds, per benchmark, the comparison of each single step
	// (by position, 1-based) that was measured and moved it; unchanged
	// the positions judged unchanged (measured alone or in a span that
	// did not move it).
	steps     map[Key]map[int]cell
	unchanged map[Key]map[int]bool
	res       *Result
}

// point is the commit at position i: 0 is base, k the k-th commit.
func (s *search) point(i int) string {
	if i == 0 {
		return s.base
	}
	return s.commits[i-1].Hash
}

// span measures positions lo..hi (lo's code against hi's) for keys and
// returns the keys that moved; the others are marked unchanged in
// lo+1..hi.
func (s *search) span(lo, hi int, keys []Key) ([]Key, error) {
	cmp, err := s.measure(s.ctx, s.point(lo), s.point(hi), BenchNames(keys))
	if err != nil {
		return nil, fmt.Errorf("measure %d..%d of %d: %w", lo, hi, len(s.commits), err)
	}
	s.res.Measured++
	cells := map[Key]cell{}
	for i := range cmp.Rows {
		row := &cmp.Rows[i]
		if row.Base != nil && len(row.Candidates) > 0 {
			cells[keyOf(row)] = cell{before: row.Base.Center, cand: row.Candidates[0]}
		}
	}
	var out []Key
	for _, k := range keys {
		c, ok := cells[k]
		switch {
		case ok && changed(c.cand):
			out = append(out, k)
			if hi-lo == 1 {
				s.steps[k][hi] = c
			}
		case ok:
			for p := lo + 1; p <= hi; p++ {
				s.unchanged[k][p] = true
			}
		}
		// A benchmark the span did not measure (a failed build) stays
		// neither changed nor unchanged there.
	}
	return out, nil
}

// linear measures every commit against its parent.
func (s *search) linear(keys []Key) error {
	for k := 1; k <= len(s.commits); k++ {
		if _, err := s.span(k-1, k, keys); err != nil {
			return err
		}
	}
	return nil
}

// halve searches positions lo..hi, known to move keys, by measuring both
// halves and searching those that moved further.
func (s *search) halve(lo, hi int, keys []Key) error {
	if hi-lo <= 1 || len(keys) == 0 {
		return nil
	}
	mid := (lo + hi) / 2
	for _, h := range [][2]int{{lo, mid}, {mid, hi}} {
		movedKeys, err := s.span(h[0], h[1], keys)
		if err != nil {
			return err
		}
		if err := s.halve(h[0], h[1], movedKeys); err != nil {
			return err
		}
	}
	return nil
}

// finding is the answer for one benchmark.
func (s *search) finding(k Key, m moved, share float64) Benchmark {
	b := Benchmark{Key: k, Params: m.row.Params, Overall: Change{Verdict: m.cand.Verdict, DeltaPct: m.cand.DeltaPct,
		Before: m.row.Base.Center, After: m.cand.Center, P: m.cand.P}}
	whole := math.Log(m.cand.Ratio)
	var responsible []Step
	for pos := 1; pos <= len(s.commits); pos++ {
		c, ok := s.steps[k][pos]
		if !ok {
			if s.unchanged[k][pos] {
				b.Unchanged = append(b.Unchanged, pos)
			} else {
				b.Unmeasured = append(b.Unmeasured, pos)
			}
			continue
		}
		st := s.step(pos, c)
		st.Share = math.Log(c.cand.Ratio) / whole
		b.Changed = append(b.Changed, st)
		if st.Share >= share {
			responsible = append(responsible, st)
		}
	}
	switch {
	case len(responsible) == 1:
		r := responsible[0]
		b.Responsible = &r
	case len(b.Changed) == 0:
		b.Reason = "no single step changed it significantly"
	default:
		var at []string
		for _, st := range b.Changed {
			at = append(at, fmt.Sprintf("%d/%d", st.Position, st.Of))
		}
		b.Reason = "the change is spread over " + strings.Join(at, ", ")
	}
	return b
}

// cell is one benchmark's comparison in a measured span.
type cell struct {
	before float64
	cand   compare.Candidate
}

func (s *search) step(pos int, c cell) Step {
	cm := s.commits[pos-1]
	return Step{Position: pos, Of: len(s.commits), Commit: cm.Hash, Subject: cm.Subject,
		Change: Change{DeltaPct: c.cand.DeltaPct, Before: c.before, After: c.cand.Center, P: c.cand.P, Verdict: c.cand.Verdict}}
}

// BenchNames are the distinct top-level Go benchmark names of keys, for
// a -bench filter: "Scan/small-8" gives "Scan".
func BenchNames(keys []Key) []string {
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = k.Benchmark
	}
	return topNames(names)
}

// topNames are the distinct top-level names of benchmarks, sorted.
func topNames(benchmarks []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, b := range benchmarks {
		name, _, _ := strings.Cut(Name(b), "/")
		if name != "" && !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// Name is a benchmark's name without the "Benchmark" prefix and the
// GOMAXPROCS suffix go test appends ("BenchmarkScan/small-8" gives
// "Scan/small"): the same on hosts with different numbers of cores.
func Name(benchmark string) string {
	return bench.TrimProcs(strings.TrimPrefix(benchmark, "Benchmark"))
}

// BenchFilter is a go test -bench regexp that selects exactly the
// top-level benchmarks of names (Name's form: "Scan/small" selects Scan).
func BenchFilter(names []string) string {
	tops := topNames(names)
	if len(tops) == 0 {
		return ""
	}
	quoted := make([]string, len(tops))
	for i, n := range tops {
		quoted[i] = regexp.QuoteMeta(n)
	}
	return "^Benchmark(" + strings.Join(quoted, "|") + ")$"
}
