// Package measure measures a tracked branch's commits on this host, as
// "perfbot track" does: each first-parent commit the store lacks is run as a
// job against its first parent (track.Backfill), then the track's history
// is searched for change points (track.Detect). It runs jobs; the track
// package it feeds only reads and judges the history.
package measure

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/job"
	"github.com/perfbot/perfbot/job/jobspec"
	"github.com/perfbot/perfbot/report"
	"github.com/perfbot/perfbot/runner"
	"github.com/perfbot/perfbot/store"
	"github.com/perfbot/perfbot/track"
	"github.com/perfbot/perfbot/track/changepoint"
)

// RunOptions say what one "perfbot track" measures and searches.
type RunOptions struct {
	// Branch is the tracked branch (see Branch); its Repo, when set and
	// Job.Repo is not, is the repository, relative to ConfigFile.
	Branch     config.TrackedBranch
	ConfigFile string
	// From, when set, is the commit after which commits are measured
	// (default: the branch's From, else the last commit the store has
	// for the track, else only the branch's head).
	From string
	// MaxCommits measures at most this many commits, the newest (0: all).
	MaxCommits int
	// DetectOnly measures nothing: it searches the stored history only.
	DetectOnly bool
	// Suites are the suites to run (default: the branch's).
	Suites []string
	// Detect are the change-point detector's options (see track.DetectOptions).
	Detect changepoint.Options
	// Job is how this host runs each commit's job; its verdict settings
	// are compare's defaults, as every tracked run's.
	Job job.Options
	// Log receives a line per commit and a summary; nil: none. Failures
	// of builds, benchmarks and commits go to Failures (nil: discarded).
	Log, Failures io.Writer
}

// Run measures each first-parent commit of a tracked branch that the
// store lacks against its first parent (see track.Backfill), then searches the
// track's history for change points (see track.Detect). A commit that cannot be
// measured is reported to Failures and the others go on. Suites set to auto
// keep the instrument the branch's earlier runs chose (track.KeptInstruments).
func Run(ctx context.Context, st *store.Store, o RunOptions) (*track.Result, error) {
	logw := o.Log
	if logw == nil {
		logw = io.Discard
	}
	if o.Failures == nil {
		o.Failures = io.Discard
	}
	opts := o.Job
	opts.Alpha, opts.NoiseFloorPct = config.DefaultAlpha, config.DefaultNoiseFloorPct
	tb := o.Branch
	if opts.Repo == "" && tb.Repo != "" {
		opts.Repo = tb.Repo
		if !strings.Contains(tb.Repo, "://") && !strings.Contains(tb.Repo, "@") && !filepath.IsAbs(tb.Repo) {
			opts.Repo = filepath.Join(filepath.Dir(o.ConfigFile), tb.Repo)
		}
	}
	suites := o.Suites
	if len(tb.Suites) > 0 && len(suites) == 0 {
		suites = tb.Suites
	}
	repo := opts.RepoSource()
	name := track.Name(repo, tb.Branch)
	if !o.DetectOnly {
		commits, err := toMeasure(ctx, st, name, repo, o, opts)
		if err != nil {
			return nil, err
		}
		measure := func(ctx context.Context, parent, commit string) (*compare.Comparison, error) {
			keep, err := track.KeptInstruments(ctx, st, name, tb.Branch)
			if err != nil {
				return nil, err
			}
			spec := jobspec.Spec{Key: track.KeyPrefix(name) + commit, Suites: suites, BaseRef: parent, Source: "track", KeepInstruments: keep}
			jo := opts
			jo.Candidates = []runner.Candidate{{Name: "commit", Ref: commit}}
			return measureCommit(ctx, spec, jo, o.Failures)
		}
		n, err := track.Backfill(ctx, st, name, trackCommits(commits), measure, o.Log)
		fmt.Fprintf(logw, "perfbot: track %s: measured %d of %d commits\n", name, n, len(commits))
		if err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			fmt.Fprintf(o.Failures, "perfbot: %v\n", err)
		}
	}
	res, err := track.Detect(ctx, st, name, track.Options{Detect: o.Detect, Noise: noiseLookup(ctx, st)})
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(logw, "perfbot: track %s: %d commits, %d series, %d change points (%d new)\n",
		name, res.Commits, res.Series, len(res.Found), len(res.Added))
	return res, nil
}

// toMeasure lists the branch's first-parent commits after the start (see
// RunOptions.From), at most o.MaxCommits of them, the newest.
func toMeasure(ctx context.Context, st *store.Store, name, repo string, o RunOptions, opts job.Options) ([]runner.Commit, error) {
	start := o.From
	if start == "" {
		start = o.Branch.From
	}
	if start == "" {
		if last, err := st.LastDoneRun(ctx, track.KeyPrefix(name)); err == nil {
			start = last.CandidateCommit
		}
	}
	cacheDir, err := opts.Cache()
	if err != nil {
		return nil, err
	}
	ws, err := runner.OpenWorkspace(ctx, repo, cacheDir)
	if err != nil {
		return nil, err
	}
	commits, err := ws.FirstParents(ctx, start, o.Branch.Branch)
	ws.Close() // the runner locks it again for each commit
	if err != nil {
		return nil, err
	}
	if o.MaxCommits > 0 && len(commits) > o.MaxCommits {
		commits = commits[len(commits)-o.MaxCommits:]
	}
	return commits, nil
}

// trackCommits are the runner's commits as the track records them.
func trackCommits(commits []runner.Commit) []track.Commit {
	out := make([]track.Commit, len(commits))
	for i, c := range commits {
		out[i] = track.Commit{Hash: c.Hash, Parent: c.Parent}
	}
	return out
}

// measureCommit runs one tracked commit against its parent and compares
// them; the failures of builds and benchmarks go to failures.
func measureCommit(ctx context.Context, spec jobspec.Spec, opts job.Options, failures io.Writer) (*compare.Comparison, error) {
	outcome, err := job.Run(ctx, spec, opts)
	if err != nil {
		return nil, err
	}
	cmp := outcome.Comparison
	outcome.WriteFailures(failures)
	if !outcome.Compared() {
		return nil, errors.New("nothing could be compared: see the failures above")
	}
	return storable(cmp)
}

// storable returns cmp as the store can hold it: through its JSON contract
// (numbers JSON cannot hold become null, as the service's jobs have them),
// with the raw samples and summaries put back.
func storable(cmp *compare.Comparison) (*compare.Comparison, error) {
	var b bytes.Buffer
	if err := report.JSON(&b, cmp); err != nil {
		return nil, err
	}
	var out compare.Comparison
	if err := json.Unmarshal(b.Bytes(), &out); err != nil {
		return nil, fmt.Errorf("comparison: %w", err)
	}
	if len(out.Rows) != len(cmp.Rows) {
		return nil, fmt.Errorf("comparison: %d rows came back from JSON, want %d", len(out.Rows), len(cmp.Rows))
	}
	for i := range cmp.Rows {
		src, dst := &cmp.Rows[i], &out.Rows[i]
		if src.Base != nil && dst.Base != nil {
			dst.Base.Samples, dst.Base.Summary = src.Base.Samples, src.Base.Summary
		}
		for j := range min(len(src.Candidates), len(dst.Candidates)) {
			dst.Candidates[j].Samples, dst.Candidates[j].Summary = src.Candidates[j].Samples, src.Candidates[j].Summary
		}
	}
	return &out, nil
}

// noiseLookup returns the calibrated noise thresholds of this host's
// benchmarks (perfbot calibrate); nil when there are none.
func noiseLookup(ctx context.Context, st *store.Store) func(store.SeriesKey) (float64, bool) {
	threshold := job.NoiseThresholds(ctx, st)
	if threshold == nil {
		return nil
	}
	return func(k store.SeriesKey) (float64, bool) {
		return threshold(store.NoiseKey{Group: k.Group, Benchmark: k.Benchmark, Params: k.Params, Metric: k.Metric, Unit: k.Unit})
	}
}
