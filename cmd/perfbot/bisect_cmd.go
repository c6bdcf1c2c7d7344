package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/perfbot/perfbot/bisect"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/job"
	"github.com/perfbot/perfbot/job/jobspec"
	"github.com/perfbot/perfbot/runner"
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
	fs.Float64Var(&f.alpha, "alpha", config.DefaultAlpha, "significance level")
	fs.Float64Var(&f.floor, "noise-floor", config.DefaultNoiseFloorPct, "percent: as in perfbot compare")
	fs.StringVar(&f.method, "method", "perfbot", "verdict method: perfbot or benchstat")
	fs.IntVar(&f.tune.MaxCount, "max-count", 0, "adaptive sampling: add rounds while a benchmark is undecided, up to this many per side (default: as in perfbot compare)")
	fs.Var(&f.tune.Budget, "budget", "adaptive sampling: as in perfbot compare, for each comparison")
	fs.Uint64Var(&f.seed, "seed", 0, "seed of the rounds' random order (default: random)")
	fs.StringVar(&f.db, "db", "", "history database whose noise thresholds (perfbot calibrate) the verdicts apply: a SQLite file or a postgres:// URL")
	fs.StringVar(&f.driver, "driver", "", "store driver of --db: sqlite or postgres (default: from --db)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: perfbot bisect --repo REPO --base REF --head REF [--format text|json] [compare's run flags]\n")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected arguments: %s", strings.Join(fs.Args(), " "))
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
	if !(f.floor > 0) {
		return usagef("--noise-floor %v: want a positive percentage", f.floor)
	}
	method, err := verdictMethod(f.method)
	if err != nil {
		return err
	}
	opts, err := f.jobOptions()
	if err != nil {
		return err
	}
	if *minChange == 0 && f.cfg != nil && f.cfg.Service.Bisect != nil {
		*minChange = float64(f.cfg.Service.Bisect.MinChange)
	}
	opts.Alpha, opts.NoiseFloorPct, opts.Method = f.alpha, f.floor, method
	defer f.showProgress(&opts, stderr)()

	cacheDir, err := opts.Cache()
	if err != nil {
		return err
	}
	ws, err := runner.OpenWorkspace(ctx, opts.RepoSource(), cacheDir)
	if err != nil {
		return err
	}
	base, err := ws.Resolve(ctx, f.base)
	if err != nil {
		ws.Close()
		return err
	}
	// A base that is not an ancestor of head is replaced by the commit
	// the series starts from, so that only the series is measured.
	base, series, err := bisect.Series(ctx, ws, base, *head)
	ws.Close() // the runner locks it again for each comparison
	if err != nil {
		return err
	}
	if len(series) == 0 {
		return usagef("%s has no commits after %s on its first-parent line", *head, f.base)
	}
	measure := func(ctx context.Context, from, to string, names []string) (*compare.Comparison, error) {
		if !f.quiet {
			what := "every benchmark"
			if len(names) > 0 {
				what = strings.Join(names, ", ")
			}
			fmt.Fprintf(stderr, "perfbot: bisect: %.12s against %.12s: %s\n", from, to, what)
		}
		o := opts
		if filter := bisect.BenchFilter(names); filter != "" {
			o.Tune.Bench = filter
		}
		o.Candidates = []runner.Candidate{{Name: "after", Ref: to}}
		outcome, err := job.Run(ctx, jobspec.Spec{Suites: f.suites, BaseRef: from, Source: "cli"}, o)
		if err != nil {
			return nil, jobError(err)
		}
		for _, fl := range outcome.Comparison.Failures {
			fmt.Fprintf(stderr, "perfbot: %.12s..%.12s: %s %s: %s\n", from, to, fl.Variant, fl.Stage, fl.Message)
		}
		if !outcome.Compared() {
			return nil, errors.New("nothing could be compared: see the failures above")
		}
		return outcome.Comparison, nil
	}
	overall, err := measure(ctx, base, series[len(series)-1].Hash, nil)
	if err != nil {
		return fmt.Errorf("compare base with head: %w", err)
	}
	res, err := bisect.Search(ctx, base, series, overall, measure, bisect.Options{MinChangePct: *minChange})
	if err != nil {
		return err
	}
	if *format == "json" {
		return bisect.WriteJSON(stdout, res)
	}
	return bisect.WriteText(stdout, res)
}
