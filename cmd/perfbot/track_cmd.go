package main

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
	"github.com/perfbot/perfbot/report"
	"github.com/perfbot/perfbot/runner"
	"github.com/perfbot/perfbot/store"
	"github.com/perfbot/perfbot/track"
	"github.com/perfbot/perfbot/track/changepoint"
)

// trackCmd implements "perfbot track": it measures each first-parent
// commit of a branch after --from that the store lacks against its first
// parent, then searches every benchmark's history on the branch for change
// points and prints them.
func trackCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var f compareFlags
	fs := newFlagSet("track", stderr)
	f.addRunFlags(fs)
	branch := fs.String("branch", "", "branch to track (default: the config's only tracked branch, else project.branch)")
	from := fs.String("from", "", "measure the commits after this one (default: the config's track from, else the last commit the store has for the branch, else only the branch's head)")
	maxCommits := fs.Int("max-commits", 0, "measure at most this many commits, the newest ones (0: all)")
	alpha := fs.Float64("alpha", 0, "change-point significance level (default: the config's track.alpha, else 0.001)")
	minChange := fs.Float64("min-change", 0, "smallest change reported, in percent; a benchmark's calibrated noise raises it (default: the config's track.min_change, else 5)")
	format := fs.String("format", "text", "output format of the change points: text or json")
	detectOnly := fs.Bool("detect-only", false, "measure nothing: search the stored history only")
	fs.BoolVar(&f.noConfirm, "no-confirm", false, "keep a commit's regressions as its first run found them, without rerunning them once to confirm")
	fs.Uint64Var(&f.seed, "seed", 0, "seed of the rounds' random order (default: random)")
	fs.StringVar(&f.db, "db", "perfbot.db", "history database: a SQLite file or a postgres:// URL")
	fs.StringVar(&f.driver, "driver", "", "store driver: sqlite or postgres (default: from --db)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: perfbot track --repo REPO --branch BRANCH [--from REV] [--db FILE|URL] [compare's run flags]\n")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	if *format != "text" && *format != "json" {
		return usagef("--format %q: want text or json", *format)
	}
	if *maxCommits < 0 {
		return usagef("--max-commits %d: want 0 or more", *maxCommits)
	}
	db, err := f.dsn()
	if err != nil {
		return err
	}
	opts, err := f.jobOptions()
	if err != nil {
		return err
	}
	defer f.showProgress(&opts, stderr)()
	// Each commit's comparison with its parent is stored as a run, with
	// compare's default verdicts.
	opts.Alpha, opts.NoiseFloorPct = config.DefaultAlpha, config.DefaultNoiseFloorPct
	opts.NoConfirm = f.noConfirm
	tb, err := trackedBranch(f.cfg, *branch)
	if err != nil {
		return err
	}
	if tb.Branch == "" {
		return usagef("give --branch (no tracked branch or project.branch in the config)")
	}
	if f.repo == "" && tb.Repo != "" {
		opts.Repo = tb.Repo
		if !strings.Contains(tb.Repo, "://") && !strings.Contains(tb.Repo, "@") && !filepath.IsAbs(tb.Repo) {
			opts.Repo = filepath.Join(filepath.Dir(f.config), tb.Repo)
		}
	}
	if len(tb.Suites) > 0 && len(f.suites) == 0 {
		f.suites = tb.Suites
	}
	dopts, err := detectOptions(f.cfg, *alpha, *minChange)
	if err != nil {
		return err
	}
	st, err := store.Open(ctx, storeDriver(f.driver, db), db)
	if err != nil {
		return err
	}
	defer st.Close()
	repo := opts.RepoSource()
	cacheDir, err := opts.Cache()
	if err != nil {
		return err
	}
	name := track.Name(repo, tb.Branch)

	if !*detectOnly {
		start := *from
		if start == "" {
			start = tb.From
		}
		if start == "" {
			if last, err := st.LastDoneRun(ctx, track.KeyPrefix(name)); err == nil {
				start = last.CandidateCommit
			}
		}
		ws, err := runner.OpenWorkspace(ctx, repo, cacheDir)
		if err != nil {
			return err
		}
		commits, err := ws.FirstParents(ctx, start, tb.Branch)
		ws.Close() // the runner locks it again for each commit
		if err != nil {
			return err
		}
		if *maxCommits > 0 && len(commits) > *maxCommits {
			commits = commits[len(commits)-*maxCommits:]
		}
		measure := func(ctx context.Context, parent, commit string) (*compare.Comparison, error) {
			spec := job.Spec{Key: track.KeyPrefix(name) + commit, Suites: f.suites, BaseRef: parent, Source: "track"}
			o := opts
			o.Candidates = []runner.Candidate{{Name: "commit", Ref: commit}}
			return measureCommit(ctx, spec, o, stderr)
		}
		var lines io.Writer
		if !f.quiet {
			lines = stderr
		}
		n, err := track.Backfill(ctx, st, name, commits, measure, lines)
		if !f.quiet {
			fmt.Fprintf(stderr, "perfbot: track %s: measured %d of %d commits\n", name, n, len(commits))
		}
		if err != nil {
			if ctx.Err() != nil {
				return err
			}
			fmt.Fprintf(stderr, "perfbot: %v\n", err)
		}
	}
	res, err := track.Detect(ctx, st, name, track.Options{Detect: dopts, Noise: noiseLookup(ctx, st)})
	if err != nil {
		return err
	}
	if !f.quiet {
		fmt.Fprintf(stderr, "perfbot: track %s: %d commits, %d series, %d change points (%d new)\n",
			name, res.Commits, res.Series, len(res.Found), len(res.Added))
	}
	cps, err := st.ChangePoints(ctx, store.ChangePointFilter{Track: name})
	if err != nil {
		return err
	}
	if *format == "json" {
		return track.WriteJSON(stdout, cps)
	}
	return track.WriteText(stdout, cps)
}

// trackedBranch picks the branch to track: --branch, with its config entry
// if the config tracks it, else the config's only tracked branch, else
// project.branch.
func trackedBranch(cfg *config.Config, branch string) (config.TrackedBranch, error) {
	if cfg == nil {
		return config.TrackedBranch{Branch: branch}, nil
	}
	for _, b := range cfg.Track.Branches {
		if b.Branch == branch || branch == "" && len(cfg.Track.Branches) == 1 {
			return b, nil
		}
	}
	if branch == "" && len(cfg.Track.Branches) > 1 {
		var names []string
		for _, b := range cfg.Track.Branches {
			names = append(names, b.Branch)
		}
		return config.TrackedBranch{}, usagef("give --branch: %s tracks %s", cfg.File, strings.Join(names, ", "))
	}
	if branch == "" {
		branch = cfg.Project.Branch
	}
	return config.TrackedBranch{Branch: branch}, nil
}

// detectOptions are the detector's options: flags over config over
// defaults.
func detectOptions(cfg *config.Config, alpha, minChange float64) (changepoint.Options, error) {
	var o changepoint.Options
	if cfg != nil {
		o.Alpha, o.MinChangePct, o.Test = cfg.Track.Alpha, cfg.Track.MinChange, changepoint.Test(cfg.Track.Test)
	}
	if alpha != 0 {
		if !(alpha > 0 && alpha < 1) {
			return o, usagef("--alpha %v: want a level between 0 and 1", alpha)
		}
		o.Alpha = alpha
	}
	if minChange != 0 {
		if !(minChange > 0) {
			return o, usagef("--min-change %v: want a positive percentage", minChange)
		}
		o.MinChangePct = minChange
	}
	return o, nil
}

// measureCommit runs one tracked commit against its parent and compares
// them.
func measureCommit(ctx context.Context, spec job.Spec, opts job.Options, stderr io.Writer) (*compare.Comparison, error) {
	outcome, err := job.Run(ctx, spec, opts)
	if err != nil {
		return nil, err
	}
	cmp := outcome.Comparison
	for _, fl := range cmp.Failures {
		fmt.Fprintf(stderr, "perfbot: %s %s: %s\n", fl.Variant, fl.Stage, fl.Message)
	}
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

// changesCmd implements "perfbot changes": the stored change points of
// tracked branches, newest first.
func changesCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("changes", stderr)
	db := fs.String("db", "perfbot.db", "history database: a SQLite file, or a postgres:// URL")
	driver := fs.String("driver", "", "store driver: sqlite or postgres (default: from --db)")
	format := fs.String("format", "text", "output format: text or json")
	trackName := fs.String("track", "", "only this tracked branch (REPO@BRANCH, as perfbot track names it)")
	bench := fs.String("benchmark", "", "only this benchmark")
	limit := fs.Int("limit", 0, "print at most this many (0: all)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: perfbot changes [--db FILE|URL] [--format text|json] [--track REPO@BRANCH] [--benchmark NAME]\n")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	if *format != "text" && *format != "json" {
		return usagef("--format %q: want text or json", *format)
	}
	if *limit < 0 {
		return usagef("--limit %d: want 0 or more", *limit)
	}
	st, err := store.Open(ctx, storeDriver(*driver, *db), *db)
	if err != nil {
		return err
	}
	defer st.Close()
	cps, err := st.ChangePoints(ctx, store.ChangePointFilter{Track: *trackName, Benchmark: *bench, Limit: *limit})
	if err != nil {
		return err
	}
	if *format == "json" {
		return track.WriteJSON(stdout, cps)
	}
	return track.WriteText(stdout, cps)
}
