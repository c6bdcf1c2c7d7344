// Package track follows branches after merge: it benchmarks their commits
// (each against the commit measured before it on the branch's first-parent
// line), keeps each benchmark's history per branch in the store, searches
// those histories for change points (package changepoint) and says what
// it found.
//
// A tracked branch is named "REPO@BRANCH" in the store: its runs have venue
// store.VenueTrack and that name as target.
package track

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/store"
	"github.com/perfbot/perfbot/track/changepoint"
)

// Name names a tracked branch of repo. A local path is made absolute so
// that "." and the full path name one track.
func Name(repo, branch string) string {
	if !strings.Contains(repo, "://") && !strings.Contains(repo, "@") {
		if abs, err := filepath.Abs(repo); err == nil {
			repo = abs
		}
	}
	return repo + "@" + branch
}

// KeyPrefix is the job key prefix of a track's runs; a run's key is the
// prefix and the commit it measured.
func KeyPrefix(track string) string { return "track:" + track + ":" }

// Options tune detection.
type Options struct {
	// Detect are the detector's options; MinChangePct is the floor of
	// every benchmark's minimum change.
	Detect changepoint.Options
	// Noise returns a benchmark's calibrated noise threshold in percent
	// (perfbot calibrate); it raises that benchmark's minimum change.
	// nil: none.
	Noise func(store.SeriesKey) (pct float64, ok bool)
}

// Result is what one detection over a track found.
type Result struct {
	// Track names the tracked branch ("REPO@BRANCH").
	Track string
	// Series counts the benchmark series searched; Commits the commits in
	// the track's history.
	Series, Commits int
	// Found are the change points now found, oldest commit first per
	// series; Added are those not stored before.
	Found, Added []store.ChangePoint
}

// confirmed reports whether the run that measured a change point's first
// commit against the commit before it saw the change too: the same
// direction and at least a third of its size. A step in the history that
// the paired run did not see came from the host (load, a new machine
// setup) between runs, not from the commit.
func confirmed(deltaPct, pairedPct float64) bool {
	if math.IsNaN(pairedPct) {
		return false
	}
	return deltaPct*pairedPct > 0 && math.Abs(pairedPct) >= math.Abs(deltaPct)/3
}

// Detect finds the change points of every benchmark series of a track
// and stores them (see store.SaveChangePoints). It has two paths:
//
//   - the run: each commit's own run compared it with its parent in
//     alternating rounds; when that comparison is decisive for a series
//     (see decisive), the commit is a change point at once;
//   - the history: the series' centres along the branch are searched for
//     steps and drifts (package changepoint), which finds changes a single
//     run missed, once about five commits stand on the step's shorter
//     side. A change point of the history is kept only when the commit's
//     own run confirms it (see confirmed).
//
// A commit both paths find is one change point, with the history's
// figures and FoundBy store.FoundByBoth.
func Detect(ctx context.Context, st *store.Store, track string, o Options) (*Result, error) {
	runs, err := st.TrackRuns(ctx, track)
	if err != nil {
		return nil, err
	}
	points, err := st.TrackedPoints(ctx, track)
	if err != nil {
		return nil, err
	}
	h := History(runs, points)
	res := &Result{Track: track, Series: len(h.Series), Commits: len(h.Commits)}
	ev := newEvidence(st, runs)
	index := map[string]int{}
	for i, c := range h.Commits {
		index[c] = i
	}
	for _, key := range h.Keys {
		values := h.Series[key]
		opts := o.Detect
		minPct := opts.MinChangePct
		if minPct == 0 {
			minPct = config.DefaultTrackMinChangePct
		}
		if o.Noise != nil {
			if n, ok := o.Noise(key); ok && n > minPct {
				minPct = n
			}
		}
		opts.MinChangePct = minPct
		if minPct <= 0 {
			opts.MinChangePct = -1
		}
		var params bench.Params
		if err := json.Unmarshal([]byte(key.Params), &params); err != nil {
			return nil, fmt.Errorf("track %s, %s: %w", track, key.Benchmark, err)
		}
		byRun := map[int]store.ChangePoint{}
		for i, runID := range h.RunOf {
			if runID == 0 {
				continue
			}
			cp, ok, err := ev.decisive(ctx, runID, key, math.Max(minPct, 0))
			if err != nil {
				return nil, fmt.Errorf("track %s, %s: %w", track, key.Benchmark, err)
			}
			if ok {
				cp.Track, cp.Params, cp.Commit = track, params, h.Commits[i]
				byRun[i] = cp
			}
		}
		found, err := changepoint.Detect(values, opts)
		if err != nil {
			return nil, fmt.Errorf("track %s, %s: %w", track, key.Benchmark, err)
		}
		var cps []store.ChangePoint
		for _, p := range found {
			if !confirmed(p.DeltaPct, h.Paired[key][p.Index]) {
				continue
			}
			by := store.FoundByHistory
			if _, ok := byRun[p.Index]; ok {
				by = store.FoundByBoth
				delete(byRun, p.Index)
			}
			cps = append(cps, store.ChangePoint{
				Track: track, Benchmark: key.Benchmark, Group: key.Group, Params: params, Unit: key.Unit, Metric: key.Metric,
				Commit: h.Commits[p.Index], CommitBefore: h.Commits[p.Last], RunID: h.RunOf[p.Index],
				NBefore: p.Before.N, NAfter: p.After.N,
				Before: p.Before.Centre, BeforeLo: p.Before.Lo, BeforeHi: p.Before.Hi,
				After: p.After.Centre, AfterLo: p.After.Lo, AfterHi: p.After.Hi,
				DeltaPct: p.DeltaPct, P: p.P, MinChangePct: math.Max(minPct, 0), FoundBy: by,
			})
		}
		for _, cp := range byRun {
			cps = append(cps, cp)
		}
		slices.SortFunc(cps, func(a, b store.ChangePoint) int { return cmp.Compare(index[a.Commit], index[b.Commit]) })
		added, err := st.SaveChangePoints(ctx, track, key, cps)
		if err != nil {
			return nil, err
		}
		res.Found = append(res.Found, cps...)
		res.Added = append(res.Added, added...)
	}
	return res, nil
}

// evidence reads the verdicts and comparisons of a track's runs, each run
// once.
type evidence struct {
	st       *store.Store
	runs     map[int64]store.Run
	verdicts map[int64][]store.Verdict
	cmps     map[int64]*compare.Comparison
}

func newEvidence(st *store.Store, runs []store.Run) *evidence {
	e := &evidence{st: st, runs: map[int64]store.Run{}, verdicts: map[int64][]store.Verdict{}, cmps: map[int64]*compare.Comparison{}}
	for _, r := range runs {
		e.runs[r.ID] = r
	}
	return e
}

// decisive returns the change point a run makes of its commit in one
// series, when the run's comparison with the commit's parent was decisive
// there (see decisiveRow). The change point carries the run's own
// figures: its baseline and candidate centres with their intervals,
// change and p-value.
func (e *evidence) decisive(ctx context.Context, runID int64, key store.SeriesKey, minPct float64) (store.ChangePoint, bool, error) {
	vs, ok := e.verdicts[runID]
	if !ok {
		var err error
		vs, err = e.st.RunVerdicts(ctx, runID, string(compare.Better), string(compare.Worse))
		if err != nil {
			return store.ChangePoint{}, false, err
		}
		e.verdicts[runID] = vs
	}
	i := slices.IndexFunc(vs, func(v store.Verdict) bool {
		return v.Key == key && !math.IsNaN(v.DeltaPct) && math.Abs(v.DeltaPct) >= minPct
	})
	if i < 0 {
		return store.ChangePoint{}, false, nil
	}
	v := vs[i]
	r := e.runs[runID]
	cp := store.ChangePoint{Benchmark: key.Benchmark, Group: key.Group, Unit: key.Unit, Metric: key.Metric,
		CommitBefore: r.BaseCommit, RunID: runID, NBefore: 1, NAfter: 1, DeltaPct: v.DeltaPct,
		MinChangePct: minPct, FoundBy: store.FoundByRun}
	c, ok := e.cmps[runID]
	if !ok {
		var err error
		if c, err = e.st.Comparison(ctx, runID); err != nil {
			return store.ChangePoint{}, false, err
		}
		e.cmps[runID] = c
	}
	for _, row := range c.Rows {
		params, err := json.Marshal(row.Params)
		if err != nil || row.Base == nil || (store.SeriesKey{Benchmark: row.Benchmark, Group: row.Group, Params: string(params),
			Unit: row.Unit, Metric: row.Metric}) != key {
			continue
		}
		for _, cand := range row.Candidates {
			if cand.Variant != v.Variant {
				continue
			}
			if !decisiveRow(row.Base, &cand, minPct) {
				return store.ChangePoint{}, false, nil
			}
			cp.Before, cp.BeforeLo, cp.BeforeHi = withInterval(row.Base.Center, row.Base.Lo, row.Base.Hi)
			cp.After, cp.AfterLo, cp.AfterHi = withInterval(cand.Center, cand.Lo, cand.Hi)
			cp.P = cand.P
			return cp, true, nil
		}
	}
	return store.ChangePoint{}, false, fmt.Errorf("run %d: verdict %s of %s without its row in the stored comparison", runID, v.Verdict, key.Benchmark)
}

// decisiveRow says whether a run's comparison of a commit with its parent
// names the commit as a change of one benchmark at once:
//
//   - its verdict is better or worse, which compare gives only when the
//     change is significant after false-discovery-rate control and beyond
//     the benchmark's noise (noisy and same are not decisive);
//   - the change is at least minPct (the track's minimum change, raised to
//     the benchmark's calibrated noise);
//   - its p-value is at most RunAlpha, stricter than the run's own level:
//     with five rounds a side, every round of one side beyond every round
//     of the other, so a burst of load in a few rounds cannot make it.
func decisiveRow(base *compare.Cell, cand *compare.Candidate, minPct float64) bool {
	if base == nil || cand.Presence != compare.Both || (cand.Verdict != compare.Better && cand.Verdict != compare.Worse) {
		return false
	}
	if math.IsNaN(cand.DeltaPct) || math.Abs(cand.DeltaPct) < minPct {
		return false
	}
	return cand.P <= RunAlpha
}

// RunAlpha is the largest p-value of a run that makes its commit a change
// point at once (see decisiveRow).
const RunAlpha = 0.01

// withInterval returns a centre with its interval, or with the centre
// itself as both ends when the run had none (too few rounds: stored as
// zeros).
func withInterval(c, lo, hi float64) (float64, float64, float64) {
	if !(lo <= c && c <= hi) || lo == hi && lo != c {
		return c, c, c
	}
	return c, lo, hi
}
