package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/perfbot/perfbot/job"
	"github.com/perfbot/perfbot/store"
)

// calibrateCmd implements "perfbot calibrate": it runs the baseline against
// itself (two worktrees of one commit, "base" and "base-again") and stores
// each benchmark's observed change, which can only be noise, in the
// history, where later comparisons on this host learn their noise
// thresholds from it.
func calibrateCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var f compareFlags
	fs := newFlagSet("calibrate", stderr)
	f.addRunFlags(fs)
	fs.StringVar(&f.base, "ref", "", "the ref measured against itself (default: the config's project.branch, else HEAD)")
	fs.Uint64Var(&f.seed, "seed", 0, "seed of the rounds' random order (default: random)")
	fs.StringVar(&f.db, "db", "perfbot.db", "history database the deltas go to: a SQLite file or a postgres:// URL")
	fs.StringVar(&f.driver, "driver", "", "store driver: sqlite or postgres (default: from --db)")
	setUsage(fs, stderr, "usage: perfbot calibrate [--config FILE] [--repo REPO] [--ref REF] [--suite NAME]... [--count N] [--db FILE|URL]\n")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	opts, err := f.jobOptions()
	if err != nil {
		return err
	}
	opts.Calibrate = true
	done := f.showProgress(&opts, stderr)
	outcome, err := job.Run(ctx, f.spec(), opts)
	done()
	if err != nil {
		return jobError(err)
	}
	outcome.WriteFailures(stderr)
	cal := outcome.Calibration
	if len(cal.Deltas) == 0 {
		return &exitError{code: 1, err: errors.New("calibrate: no benchmark was measured on both sides: see the failures above")}
	}
	if err := cal.WriteTable(stdout); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "recorded %d no-change deltas for host %s in %s (seed %d)\n", len(cal.Deltas), cal.Host, store.RedactDSN(opts.NoiseDB), outcome.Comparison.Provenance.Seed)
	return nil
}

// dsn returns --db, or the value of the variable --db-env names.
func (f *compareFlags) dsn() (string, error) {
	if f.dbEnv == "" {
		return f.db, nil
	}
	v := os.Getenv(f.dbEnv)
	if v == "" {
		return "", usagef("--db-env %s: the variable is empty or unset", f.dbEnv)
	}
	return v, nil
}
