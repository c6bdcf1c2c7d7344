package main

import (
	"context"
	"errors"
	"io"

	"github.com/perfbot/perfbot/bisect"
)

// bisectCmd implements "perfbot bisect": it compares base with head and,
// for each benchmark that moved, finds the commit of the series (the
// first-parent commits base..head) responsible.
func bisectCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var f compareFlags
	fs := newFlagSet("bisect", stderr)
	f.addRunFlags(fs)
	fs.StringVar(&f.base, "base", "", "the series' base: the commit before its first (required)")
	head := fs.String("head", "", "the series' last commit (required)")
	format := fs.String("format", "text", "output format: text or json")
	minChange := fs.Float64("min-change", 0, "bisect only changes at least this large, in percent either way (default: the config's service.bisect.min_change, else every significant change)")
	f.addVerdictFlags(fs, "percent: as in perfbot compare")
	fs.IntVar(&f.tune.MaxCount, "max-count", 0, "adaptive sampling: add rounds while a benchmark is undecided, up to this many per side (default: as in perfbot compare)")
	fs.Var(&f.tune.Budget, "budget", "adaptive sampling: as in perfbot compare, for each comparison")
	fs.Uint64Var(&f.seed, "seed", 0, "seed of the rounds' random order (default: random)")
	fs.StringVar(&f.db, "db", "", "history database whose noise thresholds (perfbot calibrate) the verdicts apply: a SQLite file or a postgres:// URL")
	fs.StringVar(&f.driver, "driver", "", "store driver of --db: sqlite or postgres (default: from --db)")
	setUsage(fs, stderr, "usage: perfbot bisect --repo REPO --base REF --head REF [--format text|json] [compare's run flags]\n")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	if f.base == "" || *head == "" {
		return usagef("give --base REF and --head REF: the series is the first-parent commits after base up to head")
	}
	if *format != "text" && *format != "json" {
		return usagef("--format %q: want text or json", *format)
	}
	if *minChange < 0 {
		return usagef("--min-change %v: want 0 or a positive percentage", *minChange)
	}
	opts, err := f.jobOptions()
	if err != nil {
		return err
	}
	if err := f.verdicts(&opts); err != nil {
		return err
	}
	defer f.showProgress(&opts, stderr)()
	lo := bisect.LocalOptions{Job: opts, Suites: f.suites, Search: bisect.Options{MinChangePct: *minChange}, Failures: stderr, JobError: jobError}
	if !f.quiet {
		lo.Progress = stderr
	}
	res, err := bisect.Local(ctx, f.base, *head, lo)
	var empty *bisect.EmptySeriesError
	if errors.As(err, &empty) {
		return usagef("%v", err)
	}
	if err != nil {
		return err
	}
	return bisect.Write(stdout, *format, res)
}
