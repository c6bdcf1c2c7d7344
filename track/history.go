package track

import (
	"math"
	"sort"

	"github.com/perfbot/perfbot/store"
)

// Hist is a track's history: its commits in branch order and each
// benchmark's centre per commit (NaN where a commit has none).
type Hist struct {
	// Commits are the measured commits, oldest first.
	Commits []string
	// RunOf is the run that measured each commit as its candidate (0 for
	// a commit measured only as a baseline).
	RunOf []int64
	// Keys are the series in a stable order; Series their values, one
	// per commit.
	Keys   []store.SeriesKey
	Series map[store.SeriesKey][]float64
	// Paired holds, per series and commit, the change in percent that the
	// commit's own run measured against its baseline (the commit before
	// it), in alternating rounds on one host; NaN where there is none.
	Paired map[store.SeriesKey][]float64
}

// History puts a track's runs in branch order and lays out each benchmark's
// centres along it. Each run links a commit to the commit measured before
// it (its baseline), so the order follows those links, not the order the
// runs finished in: a backfill of older commits lands where it belongs. A
// commit measured twice keeps its latest run. A commit's value is its
// centre as a candidate; the first commit of a chain, measured only as a
// baseline, takes its baseline centre.
func History(runs []store.Run, points []store.TrackedPoint) *Hist {
	next := map[string]string{}
	runOf := map[string]int64{}
	isChild := map[string]bool{}
	var roots []string
	seen := map[string]bool{}
	for _, r := range runs {
		if r.CandidateCommit == "" || r.BaseCommit == "" || r.CandidateCommit == r.BaseCommit {
			continue
		}
		next[r.BaseCommit] = r.CandidateCommit
		runOf[r.CandidateCommit] = r.ID
		isChild[r.CandidateCommit] = true
		for _, c := range []string{r.BaseCommit, r.CandidateCommit} {
			if !seen[c] {
				seen[c] = true
				roots = append(roots, c) // in order of first appearance
			}
		}
	}
	h := &Hist{Series: map[store.SeriesKey][]float64{}, Paired: map[store.SeriesKey][]float64{}}
	index := map[string]int{}
	walk := func(c string) {
		for c != "" {
			if _, done := index[c]; done {
				return
			}
			index[c] = len(h.Commits)
			h.Commits = append(h.Commits, c)
			h.RunOf = append(h.RunOf, runOf[c])
			c = next[c]
		}
	}
	for _, c := range roots {
		if !isChild[c] {
			walk(c)
		}
	}
	for _, c := range roots { // cycles (a rewritten branch): whatever is left
		walk(c)
	}
	fromBase := map[store.SeriesKey]map[int]bool{}
	// The baseline centre of each commit's own run, for Paired.
	type at struct {
		key    store.SeriesKey
		commit string
	}
	ownBase := map[at]float64{}
	for _, p := range points {
		if p.Base && p.RunID == runOf[p.Commit] {
			ownBase[at{p.Key, p.Commit}] = p.Centre
		}
	}
	for _, p := range points {
		commit := p.Commit
		if p.Base {
			commit = p.Parent
		}
		i, ok := index[commit]
		if !ok {
			continue
		}
		vals, ok := h.Series[p.Key]
		if !ok {
			vals = make([]float64, len(h.Commits))
			for j := range vals {
				vals[j] = math.NaN()
			}
			h.Series[p.Key] = vals
			h.Keys = append(h.Keys, p.Key)
			fromBase[p.Key] = map[int]bool{}
			paired := make([]float64, len(h.Commits))
			for j := range paired {
				paired[j] = math.NaN()
			}
			h.Paired[p.Key] = paired
		}
		if !p.Base && p.RunID == runOf[commit] {
			if b, ok := ownBase[at{p.Key, commit}]; ok && b != 0 {
				h.Paired[p.Key][i] = (p.Centre/b - 1) * 100
			}
		}
		switch {
		case !p.Base:
			// The candidate's own measurement wins, the latest run last.
			if p.RunID == runOf[commit] || math.IsNaN(vals[i]) || fromBase[p.Key][i] {
				vals[i] = p.Centre
				delete(fromBase[p.Key], i)
			}
		case math.IsNaN(vals[i]):
			vals[i] = p.Centre
			fromBase[p.Key][i] = true
		}
	}
	sort.Slice(h.Keys, func(a, b int) bool {
		ka, kb := h.Keys[a], h.Keys[b]
		if ka.Benchmark != kb.Benchmark {
			return ka.Benchmark < kb.Benchmark
		}
		if ka.Group != kb.Group {
			return ka.Group < kb.Group
		}
		if ka.Params != kb.Params {
			return ka.Params < kb.Params
		}
		if ka.Metric != kb.Metric {
			return ka.Metric < kb.Metric
		}
		return ka.Unit < kb.Unit
	})
	return h
}
