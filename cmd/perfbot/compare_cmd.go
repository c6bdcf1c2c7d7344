package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/bot"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/report"
	"github.com/perfbot/perfbot/review"
	"github.com/perfbot/perfbot/runner"
)

// compareFlags are the flags of "perfbot compare".
type compareFlags struct {
	config    string
	repo      string
	base      string
	patches   multiFlag
	heads     multiFlag
	suites    multiFlag
	format    string
	out       string
	bench     string
	pkg       string
	benchtime string
	cpuprof   bool
	count     int
	cacheDir  string
	noSandbox bool
	quiet     bool
	alpha     float64
	floor     float64
	method    string
	posts     multiFlag
	key       string
	maxCount  int
	budget    config.Budget
	seed      uint64
	db        string
	dbEnv     string
	save      bool
	driver    string
	// cfg is the loaded config file, if any.
	cfg *config.Config
	// sandboxWarning is said in the report when runs are not sandboxed.
	sandboxWarning string
	// instrument overrides every suite's instrument.
	instrument string
}

// addRunFlags registers the flags shared by the commands that run suites
// (compare, calibrate): where the code and suites are, how to size the Go
// suite, the cache, the sandbox, progress and the database's variable.
func (f *compareFlags) addRunFlags(fs *flag.FlagSet) {
	fs.StringVar(&f.config, "config", "", "config file with the project's suites (default: the Go benchmarks of --repo)")
	fs.StringVar(&f.repo, "repo", "", "repository to benchmark: a local path or a clone URL (default: the config's project.repo, else .)")
	fs.Var(&f.suites, "suite", "suite of the config to run (repeatable; default: all)")
	fs.StringVar(&f.bench, "bench", "", "Go suite: run only benchmarks matching this regexp (go test -bench)")
	fs.StringVar(&f.pkg, "pkg", "", "Go suite: package pattern (default ./...)")
	fs.StringVar(&f.instrument, "instrument", "", "what measures the suites: walltime, cpu-sim (instructions and estimated cycles per op under Valgrind's cachegrind) or both (default: each suite's instrument)")
	fs.StringVar(&f.benchtime, "benchtime", "", "Go suite: time or iterations per benchmark and round (go test -benchtime)")
	fs.BoolVar(&f.cpuprof, "cpuprofile", false, "Go suite: one more round per side with -cpuprofile; with --out, flame graphs of each side and a differential one")
	fs.IntVar(&f.count, "count", 0, "rounds per side (default: the suite's count, 10 for Go)")
	fs.StringVar(&f.cacheDir, "cache-dir", "", "where cached clones and worktrees live (default: the user cache directory)")
	fs.BoolVar(&f.noSandbox, "no-sandbox", false, "run builds and benchmarks without the sandbox (only for code you trust)")
	fs.BoolVar(&f.quiet, "q", false, "do not print progress on stderr")
	fs.StringVar(&f.dbEnv, "db-env", "", "environment variable holding --db, to keep a database password off the command line")
}

func compareCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var f compareFlags
	fs := newFlagSet("compare", stderr)
	f.addRunFlags(fs)
	fs.StringVar(&f.base, "base", "", "baseline ref (default: the config's project.branch, else HEAD)")
	fs.Var(&f.patches, "patch", "patch file applied on the baseline (repeatable: one column each)")
	fs.Var(&f.heads, "head", "ref compared against the baseline (repeatable: one column each)")
	fs.StringVar(&f.format, "format", "text", "output format: text, markdown, jira or json")
	fs.StringVar(&f.out, "out", "", "also write every rendering and the raw results into this directory")
	fs.Float64Var(&f.alpha, "alpha", 0.05, "significance level")
	fs.Float64Var(&f.floor, "noise-floor", 5, "percent: a row without a significant change is same only when its change's interval rules out changes this large (else noisy), and adaptive sampling runs a benchmark until it does")
	fs.StringVar(&f.method, "method", "perfbot", "verdict method: perfbot or benchstat")
	fs.Var(&f.posts, "post", "post the report: github:OWNER/REPO#N, jira:KEY-123, reviewboard:ID or mail:ADDRESS[,ADDRESS][?cc=ADDRESS] (repeatable)")
	fs.IntVar(&f.maxCount, "max-count", 0, "adaptive sampling: add rounds while a benchmark is undecided, up to this many per side")
	fs.Var(&f.budget, "budget", "adaptive sampling: run the undecided benchmarks again while this lasts: rounds (10x: the runs of 10 rounds of every benchmark) or a time per suite (5m)")
	fs.Uint64Var(&f.seed, "seed", 0, "seed of the rounds' random order, to repeat a run's order (default: random; the report's provenance names it)")
	fs.StringVar(&f.db, "db", "", "history database whose noise thresholds (perfbot calibrate) the verdicts apply: a SQLite file or a postgres:// URL")
	fs.BoolVar(&f.save, "save", false, "store the run (comparison, raw results, flame graphs, profiles) in --db, for perfbot web and perfbot history")
	fs.StringVar(&f.driver, "driver", "", "store driver of --db: sqlite or postgres (default: from --db)")
	fs.StringVar(&f.key, "key", "", "stable key of the answer, so a rerun edits it (default: derived from the --post targets and suites)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: perfbot compare [flags] --base REF (--patch FILE | --head REF)...\n")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	if len(f.patches) == 0 && len(f.heads) == 0 && f.config == "" {
		// With --config, the suites' variants are the sides.
		return usagef("give at least one --patch FILE or --head REF to compare with the baseline")
	}
	method, err := verdictMethod(f.method)
	if err != nil {
		return err
	}
	targets, err := postTargets(f.posts)
	if err != nil {
		return err
	}
	opts, err := f.runnerOptions(ctx)
	if err != nil {
		return err
	}
	if !f.quiet {
		opts.Progress = stderr
	}
	if !(f.floor > 0) {
		return usagef("--noise-floor %v: want a positive percentage", f.floor)
	}
	cmpOpts := compare.Options{Alpha: f.alpha, NoiseFloorPct: f.floor, Verdicts: compare.VerdictOptions{Method: method}}
	opts.TargetPct = f.floor
	// Without its history a comparison still stands: say so and go on.
	noise, err := f.noiseHistory(ctx)
	var noiseWarning string
	if err != nil {
		var ue *usageError
		if errors.As(err, &ue) {
			return err
		}
		noiseWarning = "noise thresholds from history not applied: " + err.Error()
		fmt.Fprintf(stderr, "perfbot: %s\n", noiseWarning)
	}
	if noise != nil {
		cmpOpts.Verdicts.History = noise.lookup
	}
	opts.Compare, opts.Seed = cmpOpts, f.seed
	outcome, err := runner.Run(ctx, opts)
	if err != nil {
		var pe *runner.PatchError
		if errors.As(err, &pe) {
			return &exitError{code: 2, err: err}
		}
		return err
	}
	cmpOpts.Base, cmpOpts.Candidates = outcome.Variants[0], outcome.Variants[1:]
	statsStart := time.Now()
	cmp, err := compare.Compare(outcome.Results, cmpOpts)
	if err != nil {
		if len(outcome.Results) > 0 {
			return err
		}
		// Nothing was measured: still report the failures.
		cmp = &compare.Comparison{Base: outcome.Variants[0], Candidates: outcome.Variants[1:]}
	}
	cmp.Failures = outcome.Failures
	if f.sandboxWarning != "" {
		cmp.Warnings = append(cmp.Warnings, f.sandboxWarning)
	}
	cmp.Warnings = append(cmp.Warnings, outcome.Warnings...)
	cmp.NoteCuts(outcome.Cuts)
	if method == compare.MethodPerfbot {
		noise.annotate(cmp)
	}
	if noiseWarning != "" {
		cmp.Warnings = append(cmp.Warnings, noiseWarning)
	}
	cmp.Provenance = outcome.Provenance
	cmp.Provenance.Tool = version
	if t := cmp.Provenance.Timing; t != nil {
		t.Add("statistics", compare.StageOverhead, time.Since(statsStart))
		t.Wall = time.Since(cmp.Provenance.Started).Seconds()
	}
	if err := emit(cmp, f.format, f.out, stdout); err != nil {
		return err
	}
	// The graphs go to --out and to posted answers; without either there
	// is nothing to draw them for.
	var flames []review.Attachment
	if f.out != "" || len(targets) > 0 || f.save {
		if flames, err = flameFiles(outcome); err != nil {
			return fmt.Errorf("flame graphs: %w", err)
		}
	}
	if f.out != "" {
		if err := writeResults(f.out, outcome); err != nil {
			return err
		}
		paths, err := writeFiles(f.out, flames)
		if err != nil {
			return fmt.Errorf("flame graphs: %w", err)
		}
		if len(paths) > 0 && !f.quiet {
			fmt.Fprintf(stderr, "perfbot: CPU flame graphs: %s\n", strings.Join(paths, ", "))
		}
		if _, err := writeFiles(f.out, profileFiles(outcome)); err != nil {
			return fmt.Errorf("profiles: %w", err)
		}
	}
	var suites []string
	for _, s := range opts.Suites {
		suites = append(suites, s.Name)
	}
	key := f.key
	if key == "" && len(targets) > 0 {
		key = answerKey(targets, suites)
	}
	var runURL string
	if f.save {
		id, err := saveRun(ctx, &f, cmp, key, targets, suites, append(flames, profileFiles(outcome)...))
		if err != nil {
			return fmt.Errorf("save the run: %w", err)
		}
		if f.cfg != nil {
			runURL = bot.RunURL(f.cfg.Service.URL, id)
		}
		if !f.quiet {
			fmt.Fprintf(stderr, "perfbot: stored as run %d in %s\n", id, storeDriver(f.driver, f.db))
		}
	}
	if len(targets) > 0 {
		if err := postAll(ctx, cmp, flames, targets, key, f.cfg, f.cacheDir, runURL, stderr); err != nil {
			return err
		}
	}
	if !compared(cmp) {
		return &exitError{code: 1, err: errors.New("nothing could be compared: see the failures above")}
	}
	return nil
}

// compared reports whether any benchmark was measured on both sides.
func compared(cmp *compare.Comparison) bool {
	for _, r := range cmp.Rows {
		for _, c := range r.Candidates {
			if c.Presence == compare.Both {
				return true
			}
		}
	}
	return false
}

func (f *compareFlags) runnerOptions(ctx context.Context) (runner.Options, error) {
	var opts runner.Options
	var cfg *config.Config
	if f.config != "" {
		c, err := config.Load(f.config)
		if err != nil {
			return opts, err
		}
		cfg = c
		f.cfg = c
	}
	opts.Repo = f.repo
	if opts.Repo == "" && cfg != nil && cfg.Project.Repo != "" {
		opts.Repo = cfg.Project.Repo
		if !strings.Contains(opts.Repo, "://") && !filepath.IsAbs(opts.Repo) && !strings.Contains(opts.Repo, "@") {
			opts.Repo = filepath.Join(filepath.Dir(f.config), opts.Repo)
		}
	}
	if opts.Repo == "" {
		opts.Repo = "."
	}
	opts.Base = f.base
	if opts.Base == "" && cfg != nil {
		opts.Base = cfg.Project.Branch
	}
	if opts.Base == "" {
		opts.Base = "HEAD"
	}
	for i, p := range f.patches {
		name := "patch"
		if len(f.patches) > 1 {
			name = strings.TrimSuffix(filepath.Base(p), filepath.Ext(p))
			if name == "" {
				name = fmt.Sprintf("patch%d", i+1)
			}
		}
		opts.Candidates = append(opts.Candidates, runner.Candidate{Name: name, Patch: p})
	}
	for _, h := range f.heads {
		opts.Candidates = append(opts.Candidates, runner.Candidate{Name: h, Ref: h})
	}

	suites, err := f.selectSuites(cfg)
	if err != nil {
		return opts, err
	}
	opts.Suites = suites

	opts.CacheDir = f.cacheDir
	if opts.CacheDir == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			return opts, fmt.Errorf("no cache directory: pass --cache-dir: %w", err)
		}
		opts.CacheDir = filepath.Join(dir, "perfbot")
	}
	warning, err := setupSandbox(ctx, &opts, cfg, f.noSandbox, dbFiles(f.db, f.dbEnv)...)
	if err != nil {
		return opts, err
	}
	f.sandboxWarning = warning
	return opts, nil
}

// selectSuites picks the suites to run and applies the Go flags.
func (f *compareFlags) selectSuites(cfg *config.Config) ([]config.Suite, error) {
	var suites []config.Suite
	switch {
	case cfg == nil || len(cfg.Suites) == 0:
		if len(f.suites) > 0 {
			return nil, usagef("--suite needs --config with suites")
		}
		suites = []config.Suite{{Name: "go", Preset: "go"}}
	case len(f.suites) == 0:
		suites = append(suites, cfg.Suites...)
	default:
		for _, name := range f.suites {
			s, ok := cfg.Suites.Lookup(name)
			if !ok {
				var names []string
				for _, s := range cfg.Suites {
					names = append(names, s.Name)
				}
				return nil, usagef("no suite %q in %s (it has: %s)", name, cfg.File, strings.Join(names, ", "))
			}
			suites = append(suites, *s)
		}
	}
	if err := config.ValidInstrument(f.instrument); err != nil {
		return nil, usagef("--%v", err)
	}
	for i := range suites {
		s := &suites[i]
		if f.instrument != "" {
			s.Instrument = f.instrument
		}
		if f.count > 0 {
			s.Count = f.count
		}
		if f.maxCount > 0 {
			s.MaxCount = f.maxCount
		}
		if !f.budget.IsZero() {
			s.Budget = f.budget
		}
		if s.Preset != "go" {
			continue
		}
		if f.bench != "" {
			s.Go.Bench = f.bench
		}
		if f.pkg != "" {
			s.Go.Packages = f.pkg
		}
		if f.benchtime != "" {
			s.Go.Benchtime = f.benchtime
		}
		if f.cpuprof {
			s.Go.CPUProfile = true
		}
	}
	return suites, nil
}

// emit renders cmp to stdout and, with an out directory, every format into
// it.
func emit(cmp *compare.Comparison, format, outDir string, stdout io.Writer) error {
	if err := report.Render(stdout, format, cmp); err != nil {
		return err
	}
	if outDir == "" {
		return nil
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return err
	}
	for _, fm := range report.AllFormats {
		var b bytes.Buffer
		if err := report.Render(&b, fm, cmp); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(outDir, report.FileName(fm)), b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// writeResults saves each variant's raw results in Go benchmark format,
// which benchstat reads too.
func writeResults(outDir string, o *runner.Outcome) error {
	for _, v := range o.Variants {
		var b bytes.Buffer
		gw := bench.NewGoWriter(&b)
		for _, r := range o.Results {
			if r.Variant == v {
				if err := gw.Write(r); err != nil {
					return err
				}
			}
		}
		if err := os.WriteFile(filepath.Join(outDir, "results-"+sanitizeFile(v)+".txt"), b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// sanitizeFile makes a variant name usable as part of a file name.
func sanitizeFile(name string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ':' || r == ' ' || r < 32 {
			return '_'
		}
		return r
	}, name)
}
