package job

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/job/jobspec"
	"github.com/perfbot/perfbot/runner"
	"github.com/perfbot/perfbot/store"
)

// Options say how this host runs a job: where the code and the suites are,
// how to size them, the sandbox, the verdicts and where progress goes.
type Options struct {
	// Config is the project's config; nil runs the Go benchmarks of Repo.
	Config *config.Config
	// Repo is the repository to benchmark, a local path or a clone URL
	// (default: the config's project.repo, relative to the config file,
	// else ".").
	Repo string
	// Candidates, when set, are the sides compared with the baseline
	// instead of the Spec's one candidate (the command line compares
	// several patches and refs); with neither, the suites' variants are
	// the sides.
	Candidates []runner.Candidate
	// Tune overrides every selected suite's settings.
	Tune Tuning
	// CacheDir holds cached clones and worktrees (default: the user cache
	// directory's perfbot folder).
	CacheDir string
	// NoSandbox runs builds and benchmarks without the sandbox.
	NoSandbox bool
	// Hidden are further host files no command may see (an SQLite --db).
	Hidden []string
	// Seed seeds the rounds' random order (0: random).
	Seed uint64
	// Alpha (default 0.05), NoiseFloorPct (default 5) and Method (default
	// perfbot) are how verdicts are reached.
	Alpha, NoiseFloorPct float64
	Method               compare.Method
	// NoConfirm posts regressions as the first run found them. By
	// default a benchmark called worse is run again once, in fresh
	// rounds, and stays worse only when the second run agrees.
	NoConfirm bool
	// NoiseDB names the history store (an SQLite file or a postgres://
	// URL) whose noise thresholds, learned by calibration, the verdicts
	// apply; NoiseDriver is its driver (default: from NoiseDB). A
	// comparison without its history still stands, with a warning.
	NoiseDB, NoiseDriver string
	// Calibrate measures the baseline against itself ("base" and
	// "base-again") and records each benchmark's change, which can only be
	// noise, in NoiseDB, which is then required.
	Calibrate bool
	// Progress receives the job's progress (nil: none); Log receives the
	// runner's lines (nil: discarded).
	Progress ProgressFunc
	Log      io.Writer
	// Version is perfbot's version, for the provenance.
	Version string
}

// Tuning are overrides of each suite's settings (zero: the suite's).
type Tuning struct {
	// Instrument is walltime, cpu-sim or both.
	Instrument      string
	Count, MaxCount int
	Budget          config.Budget
	// Bench, Packages, Benchtime and CPUProfile size Go suites.
	Bench, Packages, Benchtime string
	CPUProfile                 bool
}

// RequestError is a job that cannot be done as asked (a suite the config
// lacks, a bad setting): the requester gets an answer, and a retry would
// fail the same way. A patch that does not apply is a *runner.PatchError.
type RequestError struct{ Msg string }

func (e *RequestError) Error() string { return e.Msg }

func requestf(format string, args ...any) error {
	return &RequestError{Msg: fmt.Sprintf(format, args...)}
}

// StoreDriver is the store driver of a DSN: driver if given, else postgres
// for a postgres:// URL, else sqlite.
func StoreDriver(driver, dsn string) string {
	if driver != "" {
		return driver
	}
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		return store.Postgres
	}
	return store.SQLite
}

// RepoSource is the repository the job benchmarks: Repo, else the config's
// project.repo (relative to the config file), else ".".
func (o Options) RepoSource() string {
	repo := o.Repo
	if cfg := o.Config; repo == "" && cfg != nil && cfg.Project.Repo != "" {
		repo = cfg.Project.Repo
		if !strings.Contains(repo, "://") && !filepath.IsAbs(repo) && !strings.Contains(repo, "@") {
			repo = filepath.Join(filepath.Dir(cfg.File), repo)
		}
	}
	if repo == "" {
		repo = "."
	}
	return repo
}

// LocalRepo is RepoSource when it is a directory on this host, else ""
// (a clone URL, or a path that is not there).
func (o Options) LocalRepo() string {
	repo := o.RepoSource()
	if st, err := os.Stat(repo); err != nil || !st.IsDir() {
		return ""
	}
	return repo
}

// Cache is the directory of cached clones and worktrees: CacheDir, else
// the user cache directory's perfbot folder.
func (o Options) Cache() (string, error) {
	if o.CacheDir != "" {
		return o.CacheDir, nil
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory: pass --cache-dir: %w", err)
	}
	return filepath.Join(dir, "perfbot"), nil
}

// realDir creates dir if need be and returns its absolute real path: the
// sandbox lends directories under it to the sandbox user, and lends only
// paths with no symbolic link at any component.
func realDir(dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// runnerOptions turns the spec and options into the runner's: the sides,
// the suites and the sandbox. patch is the file holding the spec's patch,
// if any. The warning says when runs are not sandboxed.
func runnerOptions(ctx context.Context, spec jobspec.Spec, o *Options, patch string) (runner.Options, string, error) {
	var opts runner.Options
	cfg := o.Config
	opts.Repo = o.RepoSource()
	opts.Base = spec.BaseRef
	// A baseline asked for wins over the one a patch names.
	opts.BaseFromPatch, opts.PatchBase = spec.BaseRef == "", spec.BaseCommit
	if opts.Base == "" && cfg != nil {
		opts.Base = cfg.Project.Branch
	}
	if opts.Base == "" {
		opts.Base = "HEAD"
	}
	opts.Candidates = o.Candidates
	switch {
	case len(opts.Candidates) > 0:
	case patch != "":
		opts.Candidates = []runner.Candidate{{Name: "patch", Patch: patch}}
	case spec.CandidateRef != "":
		opts.Candidates = []runner.Candidate{{Name: spec.CandidateRef, Ref: spec.CandidateRef, Commit: spec.CandidateCommit}}
	}
	suites, err := selectSuites(cfg, spec.Suites, o.Tune)
	if err != nil {
		return opts, "", err
	}
	opts.Suites = suites
	if opts.CacheDir, err = o.Cache(); err != nil {
		return opts, "", err
	}
	if opts.CacheDir, err = realDir(opts.CacheDir); err != nil {
		return opts, "", fmt.Errorf("cache directory: %w", err)
	}
	opts.Progress, opts.Seed, opts.Keep = o.Log, o.Seed, spec.KeepInstruments
	warning, err := setupSandbox(ctx, &opts, cfg, o.NoSandbox, o.Hidden...)
	if err != nil {
		return opts, "", err
	}
	return opts, warning, nil
}

// selectSuites picks the named suites (all when none is named) and applies
// the overrides.
func selectSuites(cfg *config.Config, names []string, t Tuning) ([]config.Suite, error) {
	var suites []config.Suite
	switch {
	case cfg == nil || len(cfg.Suites) == 0:
		if len(names) > 0 {
			return nil, requestf("suite %s: no config with suites given", strings.Join(names, ", "))
		}
		suites = []config.Suite{{Name: "go", Preset: "go", Instrument: config.DefaultInstrument("go")}}
		if cfg != nil && cfg.Instrument != "" {
			suites[0].Instrument = cfg.Instrument
		}
	case len(names) == 0:
		suites = append(suites, cfg.Suites...)
	default:
		for _, name := range names {
			s, ok := cfg.Suites.Lookup(name)
			if !ok {
				var all []string
				for _, s := range cfg.Suites {
					all = append(all, s.Name)
				}
				return nil, requestf("no suite %q in %s (it has: %s)", name, cfg.File, strings.Join(all, ", "))
			}
			suites = append(suites, *s)
		}
	}
	if err := config.ValidInstrument(t.Instrument); err != nil {
		return nil, requestf("%v", err)
	}
	for i := range suites {
		s := &suites[i]
		if t.Instrument != "" {
			s.Instrument = t.Instrument
		}
		if t.Count > 0 {
			s.Count = t.Count
		}
		if t.MaxCount > 0 {
			s.MaxCount = t.MaxCount
		}
		if !t.Budget.IsZero() {
			s.Budget = t.Budget
		}
		if s.Preset != "go" {
			continue
		}
		if t.Bench != "" {
			s.Go.Bench = t.Bench
		}
		if t.Packages != "" {
			s.Go.Packages = t.Packages
		}
		if t.Benchtime != "" {
			s.Go.Benchtime = t.Benchtime
		}
		if t.CPUProfile {
			s.Go.CPUProfile = true
		}
	}
	return suites, nil
}

// Candidates are the sides compared with the baseline: one per patch file,
// named "patch" when it is the only one, else by its file name; then one
// per ref, named by the ref.
func Candidates(patches, refs []string) []runner.Candidate {
	var cs []runner.Candidate
	for i, p := range patches {
		name := "patch"
		if len(patches) > 1 {
			name = strings.TrimSuffix(filepath.Base(p), filepath.Ext(p))
			if name == "" {
				name = fmt.Sprintf("patch%d", i+1)
			}
		}
		cs = append(cs, runner.Candidate{Name: name, Patch: p})
	}
	for _, h := range refs {
		cs = append(cs, runner.Candidate{Name: h, Ref: h})
	}
	return cs
}

// SuiteNames are the names of the suites a job runs: those selected, else
// every suite of the config, else "go" (the Go benchmarks of the
// repository).
func (o Options) SuiteNames(selected []string) []string {
	if len(selected) > 0 {
		return selected
	}
	if o.Config == nil || len(o.Config.Suites) == 0 {
		return []string{"go"}
	}
	var names []string
	for _, s := range o.Config.Suites {
		names = append(names, s.Name)
	}
	return names
}

// ServiceOptions are the options of a job the service's child process
// runs with cfg: a service that has a second host confirm regressions
// (service.confirm) does not rerun them on this one first, and noiseDB
// (with its driver, default from the DSN), when set, is the history whose
// noise thresholds the verdicts apply, hidden from the benchmarks.
func ServiceOptions(cfg *config.Config, cacheDir, noiseDB, noiseDriver string) Options {
	return Options{Config: cfg, CacheDir: cacheDir, NoConfirm: cfg.Service.Confirm != nil,
		NoiseDB: noiseDB, NoiseDriver: noiseDriver, Hidden: DBFiles(noiseDB)}
}

// StoreOf is the driver and DSN of the store at db (a SQLite file or a
// postgres:// URL), else, when db is "", of cfg's store: section.
func StoreOf(cfg *config.Config, db string) (driver, dsn string) {
	if db != "" || cfg == nil {
		return StoreDriver("", db), db
	}
	return cfg.Store.Driver, cfg.StoreDSN()
}

// CheckTuning names what cannot be run as asked in the suites selected
// (which need a config with suites) or in the Tuning's instrument.
func (o Options) CheckTuning(suites []string) error {
	if len(suites) > 0 && (o.Config == nil || len(o.Config.Suites) == 0) {
		return errors.New("--suite needs --config with suites")
	}
	if err := config.ValidInstrument(o.Tune.Instrument); err != nil {
		return fmt.Errorf("--%w", err)
	}
	return nil
}
