package track

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
	"github.com/perfbot/perfbot/provenance"
	"github.com/perfbot/perfbot/report"
	"github.com/perfbot/perfbot/runner"
	"github.com/perfbot/perfbot/store"
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
	// Detect are the change-point detector's options (see DetectOptions).
	Detect changepoint.Options
	// Job is how this host runs each commit's job; its verdict settings
	// are compare's defaults, as every tracked run's.
	Job job.Options
	// Log receives a line per commit and a summary; nil: none. Failures
	// of builds, benchmarks and commits go to Failures (nil: discarded).
	Log, Failures io.Writer
}

// Run measures each first-parent commit of a tracked branch that the
// store lacks against its first parent (see Backfill), then searches the
// track's history for change points (see Detect). A commit that cannot be
// measured is reported to Failures and the others go on. Suites set to auto
// keep the instrument the branch's earlier runs chose (KeptInstruments).
func Run(ctx context.Context, st *store.Store, o RunOptions) (*Result, error) {
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
	name := Name(repo, tb.Branch)
	if !o.DetectOnly {
		commits, err := toMeasure(ctx, st, name, repo, o, opts)
		if err != nil {
			return nil, err
		}
		measure := func(ctx context.Context, parent, commit string) (*compare.Comparison, error) {
			keep, err := KeptInstruments(ctx, st, name, tb.Branch)
			if err != nil {
				return nil, err
			}
			spec := jobspec.Spec{Key: KeyPrefix(name) + commit, Suites: suites, BaseRef: parent, Source: "track", KeepInstruments: keep}
			jo := opts
			jo.Candidates = []runner.Candidate{{Name: "commit", Ref: commit}}
			return measureCommit(ctx, spec, jo, o.Failures)
		}
		n, err := Backfill(ctx, st, name, commits, measure, o.Log)
		fmt.Fprintf(logw, "perfbot: track %s: measured %d of %d commits\n", name, n, len(commits))
		if err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			fmt.Fprintf(o.Failures, "perfbot: %v\n", err)
		}
	}
	res, err := Detect(ctx, st, name, Options{Detect: o.Detect, Noise: noiseLookup(ctx, st)})
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
		if last, err := st.LastDoneRun(ctx, KeyPrefix(name)); err == nil {
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

// KeptInstruments are the instruments a track's next run keeps for its
// suites set to auto: those the track's last finished run had chosen (or
// kept) under auto, named with the branch and the commit whose run chose
// them. A track with no such run keeps none, and its next run probes the
// host and chooses.
func KeptInstruments(ctx context.Context, st *store.Store, track, branch string) ([]runner.KeptInstrument, error) {
	last, err := st.LastDoneRun(ctx, KeyPrefix(track))
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if len(last.Provenance) == 0 {
		return nil, nil
	}
	var prov provenance.Record
	if err := json.Unmarshal(last.Provenance, &prov); err != nil {
		return nil, fmt.Errorf("track %s: provenance of run %d: %w", track, last.ID, err)
	}
	var keep []runner.KeptInstrument
	seen := map[string]bool{}
	for _, s := range prov.Suites {
		if s.InstrumentWhy == "" || s.Instrument == "" || seen[s.Name] {
			continue
		}
		seen[s.Name] = true
		since := s.InstrumentSince
		if since == "" {
			since = last.CandidateCommit
		}
		keep = append(keep, runner.KeptInstrument{Suite: s.Name, Instrument: s.Instrument, Why: s.InstrumentWhy,
			Branch: branch, Since: since})
	}
	return keep, nil
}

// Branch picks the branch to track: branch, with its config entry if the
// config tracks it, else the config's only tracked branch, else
// project.branch. The error says which branches to choose from.
func Branch(cfg *config.Config, branch string) (config.TrackedBranch, error) {
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
		return config.TrackedBranch{}, fmt.Errorf("give --branch: %s tracks %s", cfg.File, strings.Join(names, ", "))
	}
	if branch == "" {
		branch = cfg.Project.Branch
	}
	return config.TrackedBranch{Branch: branch}, nil
}

// DetectOptions are the detector's options: alpha and minChange (0: not
// given) over the config's track section over the defaults.
func DetectOptions(cfg *config.Config, alpha, minChange float64) (changepoint.Options, error) {
	var o changepoint.Options
	if cfg != nil {
		o.Alpha, o.MinChangePct, o.Test = cfg.Track.Alpha, cfg.Track.MinChange, changepoint.Test(cfg.Track.Test)
	}
	if alpha != 0 {
		if !(alpha > 0 && alpha < 1) {
			return o, fmt.Errorf("--alpha %v: want a level between 0 and 1", alpha)
		}
		o.Alpha = alpha
	}
	if minChange != 0 {
		if !(minChange > 0) {
			return o, fmt.Errorf("--min-change %v: want a positive percentage", minChange)
		}
		o.MinChangePct = minChange
	}
	return o, nil
}

// measureCommit runs one tracked commit against its parent and compares
// them; the failures of builds and benchmarks go to failures.
func measureCommit(ctx context.Context, spec jobspec.Spec, opts job.Options, failures io.Writer) (*compare.Comparison, error) {
	outcome, err := job.Run(ctx, spec, opts)
	if err != nil {
		return nil, err
	}
	cmp := outcome.Comparison
	for _, fl := range cmp.Failures {
		fmt.Fprintf(failures, "perfbot: %s %s: %s\n", fl.Variant, fl.Stage, fl.Message)
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
