package main

import (
	"context"
	"fmt"
	"io"

	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/job"
	"github.com/perfbot/perfbot/store"
	"github.com/perfbot/perfbot/track"
	"github.com/perfbot/perfbot/track/measure"
)

// trackCmd implements "perfbot track": it measures each first-parent
// commit of a branch after --from that the store lacks against its first
// parent, then searches every benchmark's history on the branch for change
// points and prints them (see measure.Run).
func trackCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var f compareFlags
	fs := newFlagSet("track", stderr)
	f.addRunFlags(fs)
	branch := fs.String("branch", "", "branch to track (default: the config's only tracked branch, else project.branch)")
	from := fs.String("from", "", "measure the commits after this one (default: the config's track from, else the last commit the store has for the branch, else only the branch's head)")
	maxCommits := fs.Int("max-commits", 0, "measure at most this many commits, the newest ones (0: all)")
	alpha := fs.Float64("alpha", 0, fmt.Sprintf("change-point significance level (default: the config's track.alpha, else %v)", config.DefaultTrackAlpha))
	minChange := fs.Float64("min-change", 0, fmt.Sprintf("smallest change reported, in percent; a benchmark's calibrated noise raises it (default: the config's track.min_change, else %v)", config.DefaultTrackMinChangePct))
	format := fs.String("format", "text", "output format of the change points: text or json")
	detectOnly := fs.Bool("detect-only", false, "measure nothing: search the stored history only")
	fs.BoolVar(&f.noConfirm, "no-confirm", false, "keep a commit's regressions as its first run found them, without rerunning them once to confirm")
	fs.Uint64Var(&f.seed, "seed", 0, "seed of the rounds' random order (default: random)")
	fs.StringVar(&f.db, "db", "perfbot.db", "history database: a SQLite file or a postgres:// URL")
	fs.StringVar(&f.driver, "driver", "", "store driver: sqlite or postgres (default: from --db)")
	setUsage(fs, stderr, "usage: perfbot track --repo REPO --branch BRANCH [--from REV] [--db FILE|URL] [compare's run flags]\n")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	l := track.Listing{Format: *format}
	if err := l.Check(); err != nil {
		return usagef("%v", err)
	}
	if *maxCommits < 0 {
		return usagef("--max-commits %d: want 0 or more", *maxCommits)
	}
	opts, err := f.jobOptions()
	if err != nil {
		return err
	}
	defer f.showProgress(&opts, stderr)()
	opts.NoConfirm = f.noConfirm
	tb, dopts, err := track.Resolve(f.cfg, *branch, *alpha, *minChange)
	if err != nil {
		return usagef("%v", err)
	}
	st, err := store.Open(ctx, job.StoreDriver(f.driver, opts.NoiseDB), opts.NoiseDB)
	if err != nil {
		return err
	}
	defer st.Close()
	ro := measure.RunOptions{Branch: tb, ConfigFile: f.config, From: *from, MaxCommits: *maxCommits, DetectOnly: *detectOnly,
		Suites: f.suites, Detect: dopts, Job: opts, Failures: stderr}
	if !f.quiet {
		ro.Log = stderr
	}
	res, err := measure.Run(ctx, st, ro)
	if err != nil {
		return err
	}
	l.Filter.Track = res.Track
	return l.Write(ctx, stdout, st)
}
