package web

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/perfbot/perfbot/store"
)

// warmEvery is how often Warm looks for runs finished since.
const warmEvery = 10 * time.Second

// warmRuns is how many of the latest runs Warm keeps read: half the
// cache, leaving the rest to the runs people view.
const warmRuns = runCacheSize / 2

// Warm reads the latest 4 runs, when finished, into the cache the run
// pages use (decoded, laid out, charts named), then every 10 seconds the
// runs that finished since, until ctx ends: the first view of a run page
// then finds its run read. It only reads the store and never delays serving; call it
// in its own goroutine.
func (s *Server) Warm(ctx context.Context) {
	warmed := map[int64]time.Time{}
	tick := time.NewTicker(warmEvery)
	defer tick.Stop()
	for {
		s.warmLatest(ctx, warmed)
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// warmLatest warms the latest finished runs not warmed yet, oldest first
// so that the newest stay cached longest.
func (s *Server) warmLatest(ctx context.Context, warmed map[int64]time.Time) {
	rs, err := s.st.RecentRuns(ctx, warmRuns)
	if err != nil {
		if ctx.Err() == nil {
			s.log.Warn("web: list runs to read ahead", "err", err)
		}
		return
	}
	latest := map[int64]bool{}
	for _, r := range slices.Backward(rs) {
		latest[r.ID] = true
		if r.Status != store.StatusDone || r.Finished.IsZero() || warmed[r.ID].Equal(r.Finished) {
			continue
		}
		if err := s.warmRun(ctx, &r); err != nil {
			if ctx.Err() != nil {
				return
			}
			s.log.Warn("web: read run ahead", "run", r.ID, "err", err)
		}
		warmed[r.ID] = r.Finished
	}
	for id := range warmed {
		if !latest[id] {
			delete(warmed, id)
		}
	}
}

// warmRun reads a finished run into the cache, lays it out and names its
// charts; the charts are drawn when the page asks for them.
func (s *Server) warmRun(ctx context.Context, run *store.Run) error {
	rc, err := s.comparisonOf(ctx, run)
	if errors.Is(err, store.ErrNotFound) {
		return nil // failed before comparing
	}
	if err != nil {
		return err
	}
	_, err = rc.chartNames(run.ID)
	return err
}
