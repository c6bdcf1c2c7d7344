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
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strings"

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

// Detect searches every benchmark series of a track for change points and
// stores them (see store.SaveChangePoints). A change point is kept only
// when the commit's own run confirms it (see confirmed).
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
	res := &Result{Series: len(h.Series), Commits: len(h.Commits)}
	for _, key := range h.Keys {
		values := h.Series[key]
		opts := o.Detect
		minPct := opts.MinChangePct
		if minPct == 0 {
			minPct = 5
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
		found, err := changepoint.Detect(values, opts)
		if err != nil {
			return nil, fmt.Errorf("track %s, %s: %w", track, key.Benchmark, err)
		}
		var cps []store.ChangePoint
		for _, p := range found {
			if !confirmed(p.DeltaPct, h.Paired[key][p.Index]) {
				continue
			}
			cp := store.ChangePoint{
				Track: track, Benchmark: key.Benchmark, Group: key.Group, Unit: key.Unit, Metric: key.Metric,
				Commit: h.Commits[p.Index], CommitBefore: h.Commits[p.Last], RunID: h.RunOf[p.Index],
				NBefore: p.Before.N, NAfter: p.After.N,
				Before: p.Before.Centre, BeforeLo: p.Before.Lo, BeforeHi: p.Before.Hi,
				After: p.After.Centre, AfterLo: p.After.Lo, AfterHi: p.After.Hi,
				DeltaPct: p.DeltaPct, P: p.P, MinChangePct: math.Max(minPct, 0),
			}
			if err := json.Unmarshal([]byte(key.Params), &cp.Params); err != nil {
				return nil, fmt.Errorf("track %s, %s: %w", track, key.Benchmark, err)
			}
			cps = append(cps, cp)
		}
		added, err := st.SaveChangePoints(ctx, track, key, cps)
		if err != nil {
			return nil, err
		}
		res.Found = append(res.Found, cps...)
		res.Added = append(res.Added, added...)
	}
	return res, nil
}
