package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/perfbot/perfbot/ciresult"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/doctor"
	"github.com/perfbot/perfbot/job"
	"github.com/perfbot/perfbot/job/jobspec"
	"github.com/perfbot/perfbot/report"
	"github.com/perfbot/perfbot/service/setup"
	"github.com/perfbot/perfbot/target"
	"github.com/perfbot/perfbot/venue/post"
)

// compareFlags are the flags of "perfbot compare".
type compareFlags struct {
	// Where the code and the suites are, and what is compared.
	config, repo, base     string
	patches, heads, suites multiFlag
	// How the job runs and decides.
	cacheDir, method     string
	noSandbox, noConfirm bool
	alpha, floor         float64
	seed                 uint64
	tune                 job.Tuning
	// What becomes of the answer.
	format, out, key, answerOut, title string
	posts                              targetsFlag
	quiet, save                        bool
	// The history database: --db, or the variable --db-env names.
	db, dbEnv, driver string
	// cfg is the loaded config file, if any.
	cfg *config.Config
}

// addRunFlags registers the flags shared by the commands that run suites
// (compare, calibrate): where the code and suites are, how to size the Go
// suite, the cache, the sandbox, progress and the database's variable.
func (f *compareFlags) addRunFlags(fs *flag.FlagSet) {
	fs.StringVar(&f.config, "config", "", "config file with the project's suites (default: the Go benchmarks of --repo)")
	fs.StringVar(&f.repo, "repo", "", "repository to benchmark: a local path or a clone URL (default: the config's project.repo, else .)")
	fs.Var(&f.suites, "suite", "suite of the config to run (repeatable; default: all)")
	fs.StringVar(&f.tune.Bench, "bench", "", "Go suite: run only benchmarks matching this regexp (go test -bench)")
	fs.StringVar(&f.tune.Packages, "pkg", "", "Go suite: package pattern (default ./...)")
	fs.StringVar(&f.tune.Instrument, "instrument", "", "what measures the suites: walltime, cpu-sim (instructions and estimated cycles per op under Valgrind's cachegrind) both, or auto (cpu-sim when the host's noise probe varies by more than the noise floor, else walltime) (default: each suite's instrument, which is auto for a Go suite and walltime for a command suite unless the config says otherwise)")
	fs.StringVar(&f.tune.Benchtime, "benchtime", "", "Go suite: time or iterations per benchmark and round (go test -benchtime)")
	fs.BoolVar(&f.tune.CPUProfile, "cpuprofile", false, "Go suite: one more round per side with -cpuprofile; with --out, flame graphs of each side and a differential one")
	fs.IntVar(&f.tune.Count, "count", 0, fmt.Sprintf("rounds per side, fixed (default: the suite's count; else a Go suite samples adaptively, %d rounds then the undecided benchmarks up to %d within the runs of %d rounds, or does %d rounds with --max-count or --budget; a command suite %d; cpu-sim %d, up to %d)",
		config.DefaultGoCount, config.DefaultGoMaxCount, config.DefaultGoBudgetRounds, config.DefaultGoFixedCount, config.DefaultCommandCount, config.DefaultSimCount, config.DefaultSimMaxCount))
	fs.StringVar(&f.cacheDir, "cache-dir", "", "where cached clones and worktrees live (default: the user cache directory)")
	fs.BoolVar(&f.noSandbox, "no-sandbox", false, "run builds and benchmarks without the sandbox (only for code you trust)")
	fs.BoolVar(&f.quiet, "q", false, "do not print progress on stderr")
	fs.BoolVar(&f.quiet, "quiet", false, "same as -q")
	fs.StringVar(&f.dbEnv, "db-env", "", "environment variable holding --db, to keep a database password off the command line")
}

func compareCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var f compareFlags
	fs := newFlagSet("compare", stderr)
	f.addRunFlags(fs)
	fs.StringVar(&f.base, "base", "", "baseline ref (default: the base-commit a --patch names (git format-patch --base) when the repository has it, else the config's project.branch, else HEAD)")
	fs.Var(&f.patches, "patch", "patch file applied on the baseline (repeatable: one column each)")
	fs.Var(&f.heads, "head", "ref compared against the baseline (repeatable: one column each)")
	fs.StringVar(&f.format, "format", "text", "output format: text, markdown, jira or json")
	fs.StringVar(&f.out, "out", "", "also write every rendering and the raw results into this directory")
	f.addVerdictFlags(fs, "percent: a row without a significant change is same only when its change's interval rules out changes this large (else noisy), and adaptive sampling runs a benchmark until it does")
	fs.BoolVar(&f.noConfirm, "no-confirm", false, "post regressions as the first run found them, without rerunning them once to confirm")
	fs.Var(&f.posts, "post", "post the report: github:OWNER/REPO#N, gitlab:GROUP/PROJECT!N, jira:KEY-123, reviewboard:ID, gerrit:CHANGE[/PS] or mail:ADDRESS[,ADDRESS][?cc=ADDRESS] (repeatable)")
	fs.IntVar(&f.tune.MaxCount, "max-count", 0, fmt.Sprintf("adaptive sampling: add rounds while a benchmark is undecided, up to this many per side (default: the suite's max_count; %d for a Go suite that sets none of count, max_count and budget, %d under cpu-sim)",
		config.DefaultGoMaxCount, config.DefaultSimMaxCount))
	fs.Var(&f.tune.Budget, "budget", fmt.Sprintf("adaptive sampling: run the undecided benchmarks again while this lasts: rounds (10x: the runs of 10 rounds of every benchmark) or a time per suite (5m) (default: the suite's budget; %dx for a Go suite that sets none of count, max_count and budget)",
		config.DefaultGoBudgetRounds))
	fs.Uint64Var(&f.seed, "seed", 0, "seed of the rounds' random order, to repeat a run's order (default: random; the report's provenance names it)")
	fs.StringVar(&f.db, "db", "", "history database whose noise thresholds (perfbot calibrate) the verdicts apply: a SQLite file or a postgres:// URL")
	fs.BoolVar(&f.save, "save", false, "store the run (comparison, raw results, flame graphs, profiles) in --db, for perfbot web and perfbot history")
	fs.StringVar(&f.title, "title", "", "with --save: the request's title in digests and on the run page (default: the patch's subject line, else the subject of the --head commit in a local --repo)")
	fs.StringVar(&f.driver, "driver", "", "store driver of --db: sqlite or postgres (default: from --db)")
	fs.StringVar(&f.answerOut, "answer-out", "", "also write the answer as posted into this directory: answer.md (GitHub Markdown), answer.json and result.json (state, summary, commit, key, counts), for CI and perfbot post-artifact")
	fs.StringVar(&f.key, "key", "", "stable key of the answer, so a rerun edits it (default: derived from the --post targets and suites)")
	setUsage(fs, stderr, "usage: perfbot compare [flags] --base REF (--patch FILE | --head REF)...\n")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	if len(f.patches) == 0 && len(f.heads) == 0 && f.config == "" {
		// With --config, the suites' variants are the sides.
		return usagef("give at least one --patch FILE or --head REF to compare with the baseline")
	}
	targets := []target.Target(f.posts)
	opts, err := f.jobOptions()
	if err != nil {
		return err
	}
	if err := f.verdicts(&opts); err != nil {
		return err
	}
	if f.save && opts.NoiseDB == "" {
		return usagef("--save needs --db FILE|URL (or --db-env) to store the run in")
	}
	opts.Candidates = append(opts.Candidates, job.Candidates(f.patches, f.heads)...)
	opts.NoConfirm = f.noConfirm
	done := f.showProgress(&opts, stderr)
	outcome, err := job.Run(ctx, f.spec(), opts)
	done()
	if err != nil {
		return jobError(err)
	}
	cmp := outcome.Comparison
	if err := report.RenderWith(stdout, f.format, cmp, report.Options{TemplateDir: f.cfg.TemplateDir()}); err != nil {
		return err
	}
	flames, profiles, err := outcome.Files(f.out != "" || len(targets) > 0 || f.save)
	if err != nil {
		return err
	}
	if f.out != "" {
		paths, err := outcome.WriteDir(f.out, flames, profiles)
		if err != nil {
			return err
		}
		if len(paths) > 0 && !f.quiet {
			fmt.Fprintf(stderr, "perfbot: CPU flame graphs: %s\n", strings.Join(paths, ", "))
		}
	}
	suites := opts.SuiteNames(f.suites)
	key := f.key
	if key == "" && (len(targets) > 0 || f.answerOut != "") {
		key = post.AnswerKey(targets, suites)
	}
	var runID int64
	if f.save {
		s := job.Saved{Key: key, Suites: suites, Title: f.title, Files: append(flames, profiles...), Repo: opts.LocalRepo()}
		if len(targets) > 0 {
			s.Venue, s.Target = targets[0].Venue, targets[0].Where()
		}
		if runID, err = job.SaveTo(ctx, f.driver, opts.NoiseDB, cmp, s); err != nil {
			return fmt.Errorf("save the run: %w", err)
		}
		if !f.quiet {
			fmt.Fprintf(stderr, "perfbot: stored as run %d in %s\n", runID, job.StoreDriver(f.driver, opts.NoiseDB))
		}
	}
	if len(targets) > 0 || f.answerOut != "" {
		msg, err := setup.Answer(cmp, f.cfg, setup.AnswerOptions{Key: key, CacheDir: f.cacheDir, RunID: runID, Extra: flames})
		if err != nil {
			return err
		}
		if f.answerOut != "" {
			if err := ciresult.WriteDir(f.answerOut, msg, cmp); err != nil {
				return fmt.Errorf("--answer-out: %w", err)
			}
		}
		if err := postAnswer(ctx, msg, targets, post.ForConfig(f.cfg), stderr); err != nil {
			return err
		}
	}
	if !outcome.Compared() {
		return &exitError{code: 1, err: errors.New("nothing could be compared: see the failures above")}
	}
	return nil
}

// addVerdictFlags registers the flags of compare and bisect that say how
// verdicts are reached; floorHelp is --noise-floor's.
func (f *compareFlags) addVerdictFlags(fs *flag.FlagSet, floorHelp string) {
	fs.Float64Var(&f.alpha, "alpha", config.DefaultAlpha, "significance level")
	fs.Float64Var(&f.floor, "noise-floor", config.DefaultNoiseFloorPct, floorHelp)
	fs.StringVar(&f.method, "method", "perfbot", "verdict method: perfbot or benchstat")
}

// verdicts checks the verdict flags and sets them in opts.
func (f *compareFlags) verdicts(opts *job.Options) error {
	if !(f.floor > 0) {
		return usagef("--noise-floor %v: want a positive percentage", f.floor)
	}
	m, err := compare.ParseMethod(f.method)
	if err != nil {
		return usagef("--%v", err)
	}
	opts.Alpha, opts.NoiseFloorPct, opts.Method = f.alpha, f.floor, m
	return nil
}

// spec is the job the flags ask for.
func (f *compareFlags) spec() jobspec.Spec {
	return jobspec.Spec{Key: f.key, Targets: f.posts, Suites: f.suites, BaseRef: f.base, Source: "cli"}
}

// jobOptions loads the config and turns the flags shared by compare and
// calibrate into the job's options.
func (f *compareFlags) jobOptions() (job.Options, error) {
	opts := job.Options{Repo: f.repo, Tune: f.tune, CacheDir: f.cacheDir, NoSandbox: f.noSandbox, Seed: f.seed, Version: version}
	if f.config != "" {
		c, err := doctor.LoadConfig(f.config)
		if err != nil {
			return opts, err
		}
		f.cfg, opts.Config = c, c
	}
	if err := opts.CheckTuning(f.suites); err != nil {
		return opts, usagef("%v", err)
	}
	db, err := f.dsn()
	if err != nil {
		return opts, err
	}
	opts.NoiseDB, opts.NoiseDriver, opts.Hidden = db, f.driver, job.DBFiles(db)
	return opts, nil
}

// showProgress prints the job's progress and the runner's lines on stderr,
// unless -q: an updating line on a terminal, a line per round elsewhere.
// The function it returns ends the updating line.
func (f *compareFlags) showProgress(opts *job.Options, stderr io.Writer) func() {
	if f.quiet {
		return func() {}
	}
	return opts.ShowProgress(stderr)
}

// jobError gives a job's error its exit status: 2 for a job that cannot
// be done as asked (a patch that does not apply, a suite the config lacks).
func jobError(err error) error {
	if job.IsRequestError(err) {
		return &exitError{code: 2, err: err}
	}
	return err
}
