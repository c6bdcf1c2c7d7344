package track

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/store"
)

// Commit is a commit of a tracked branch with its first parent.
type Commit struct {
	Hash, Parent string
}

// Measure benchmarks commit against parent and compares them. A build or
// benchmark that fails is in the comparison's Failures; an error means
// nothing could be measured.
type Measure func(ctx context.Context, parent, commit string) (*compare.Comparison, error)

// Backfill measures each commit the track lacks against its first parent,
// oldest first, storing each as a run of the track. Root commits (no
// parent) are skipped. A commit that cannot be measured is recorded as a
// failed run and the rest go on; the errors are returned together. It
// returns how many commits were measured.
func Backfill(ctx context.Context, st *store.Store, track string, commits []Commit, measure Measure, progress io.Writer) (int, error) {
	if progress == nil {
		progress = io.Discard
	}
	have, err := st.TrackedCommits(ctx, track)
	if err != nil {
		return 0, err
	}
	var todo []Commit
	for _, c := range commits {
		if !have[c.Hash] && c.Parent != "" {
			todo = append(todo, c)
		}
	}
	n := 0
	var errs []error
	for i, c := range todo {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		fmt.Fprintf(progress, "perfbot: track %s: commit %d of %d: %s\n", track, i+1, len(todo), short(c.Hash))
		if err := Record(ctx, st, track, c, func(ctx context.Context) (*compare.Comparison, error) {
			return measure(ctx, c.Parent, c.Hash)
		}); err != nil {
			errs = append(errs, err)
			continue
		}
		n++
	}
	return n, errors.Join(errs...)
}

// Record stores one run of a track: commit against c.Parent, measured by
// run.
func Record(ctx context.Context, st *store.Store, track string, c Commit, run func(context.Context) (*compare.Comparison, error)) error {
	r := &store.Run{JobKey: KeyPrefix(track) + c.Hash, Venue: store.VenueTrack, Target: track,
		BaseRef: c.Parent, BaseCommit: c.Parent, CandidateRef: c.Hash, CandidateCommit: c.Hash}
	if _, err := st.CreateRun(ctx, r); err != nil {
		return err
	}
	cmp, err := run(ctx)
	if err != nil {
		r.Status, r.Error = store.StatusFailed, err.Error()
		if ferr := st.FinishRun(context.WithoutCancel(ctx), r); ferr != nil {
			err = errors.Join(err, ferr)
		}
		return fmt.Errorf("commit %s: %w", short(c.Hash), err)
	}
	if err := st.SaveComparison(ctx, r.ID, cmp); err != nil {
		return err
	}
	if b, err := json.Marshal(cmp.Provenance.Host); err == nil {
		r.Host = b
	}
	if b, err := json.Marshal(cmp.Provenance); err == nil {
		r.Provenance = b
	}
	r.Status = store.StatusDone
	return st.FinishRun(ctx, r)
}

func short(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}
