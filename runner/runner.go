// Package runner measures a baseline and its candidates: it checks each side
// out into its own worktree, applies patches, builds each side once, runs
// the suites in alternating rounds and collects parsed results with their
// provenance.
package runner

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/internal/gitpatch"
	"github.com/perfbot/perfbot/provenance"
	"github.com/perfbot/perfbot/sandbox"
)

// Candidate is one side compared against the baseline: a patch applied on
// the baseline, or another ref.
type Candidate struct {
	// Name is the variant's name in the report.
	Name string
	// Patch is a patch file applied on top of the baseline.
	Patch string
	// Ref is checked out instead when there is no patch.
	Ref string
	// Commit, when set with Ref, is the exact commit to check out: the
	// one a request was approved for. Ref only names it in the report; a
	// remote source is asked for the commit by its id when no fetched
	// ref has it (the ref moved on), and a *MissingCommitError says when
	// the source no longer has it.
	Commit string
	// Settings are the variant's environment, arguments, placeholder
	// values and files. A candidate with Settings and neither Patch nor
	// Ref runs the baseline's code, in the baseline's worktree, under
	// these settings.
	Settings *config.Variant
}

// Options say what to measure and how.
type Options struct {
	// Repo is a local repository path or a clone URL.
	Repo string
	// Base is the baseline ref.
	Base string
	// BaseName is the baseline's variant name (default "base").
	BaseName string
	// BaseFromPatch lets the patches choose the baseline: when their
	// patch files name one base commit ("base-commit:", git format-patch
	// --base), or PatchBase does, and the repository has it (fetched from
	// a remote source if needed), it is the baseline instead of Base. A
	// commit the repository lacks leaves Base, with a warning; a
	// malformed one is a *gitpatch.BaseCommitError.
	BaseFromPatch bool
	// PatchBase is a base commit named outside the patch files, such as
	// in a mailed series' cover letter.
	PatchBase string
	// BaseSettings are the baseline's settings, if it is a configured
	// variant.
	BaseSettings *config.Variant
	// Candidates are the other sides. When there are none, the suites'
	// variants are compared (see VariantCandidates).
	Candidates []Candidate
	Suites     []config.Suite
	// CacheDir holds cached clones and worktrees.
	CacheDir string
	// Sandbox runs every build and benchmark command.
	Sandbox sandbox.Runner
	// SandboxName describes the sandbox in the provenance.
	SandboxName string
	// Env is the environment every command starts from (an allow-listed
	// copy of perfbot's own; never secrets).
	Env []string
	// BuildWritable lists directories that build steps may write besides
	// the worktree and the side's own Go build cache.
	BuildWritable []string
	// GoCaches, when set, gives each side of the job its own Go build
	// cache and the repository its own module cache, fetched before the
	// builds (see GoCaches); nil leaves GOCACHE and GOMODCACHE to Env.
	GoCaches *GoCaches
	// DiskBudget bounds what the job's worktrees, private caches and
	// temporary directories may hold together (0: no bound); past it the
	// command is stopped and Run returns a *DiskBudgetError.
	DiskBudget int64
	// MaxOutput caps each command's kept output (0: sandbox default).
	MaxOutput int64
	// PatchLimits bound applying a patch on the host (zero: defaults).
	PatchLimits PatchLimits
	// Progress receives one line per step; nil discards them.
	Progress io.Writer
	// Step, when set, is called as each side's build and each side's
	// round starts.
	Step func(Step)
	// Seed seeds the random, balanced order of each suite's rounds; 0
	// picks one at random. The seed used is in the provenance.
	Seed uint64
	// TargetPct is the smallest change the job must detect (default 5):
	// an auto instrument chooses cpu-sim when the host's noise is larger.
	TargetPct float64
	// Keep are instruments chosen before, which suites set to auto keep
	// instead of choosing from this run's noise probe: a tracked branch
	// measures every commit with the instrument its first commit chose.
	Keep []KeptInstrument
	// Decide tells adaptive sampling (a suite's max_count or budget)
	// which benchmarks are still undecided; the job supplies it from how
	// its verdicts will be reached. Without it a suite runs its count
	// rounds only.
	Decide Decide
	// SimWork is the native CPU time the smaller of a benchmark's two runs
	// under CPU simulation spends in its loop (0: 20ms); see cpusim.go.
	SimWork time.Duration
}

// Outcome is what a run measured.
type Outcome struct {
	Results  []*bench.Result
	Failures []provenance.Failure
	Warnings []string
	// Cuts are runs whose output was cut at the output cap.
	Cuts       []provenance.Cut
	Provenance provenance.Record
	// Variants are the baseline's name and then the candidates' names.
	Variants []string
	// Profiles are the CPU profiles of go suites with cpuprofile set.
	Profiles []Profile
	// Unfair are the suites whose rounds the other sides' CPU use tainted
	// (see fence).
	Unfair []Unfair
	// simN is each benchmark's iteration count under CPU simulation,
	// chosen by the first side and shared by the others.
	simN map[string]int
	// caches are the job's Go caches (nil without Options.GoCaches).
	caches *jobCaches
	// commands is the time the benchmark commands of the current round
	// took, as the sandbox measured them.
	commands time.Duration
}

// commandRan counts a benchmark command's time towards the round's.
func (o *Outcome) commandRan(res *sandbox.Result) {
	if res != nil {
		o.commands += res.Duration
	}
}

// lap adds the time since *mark to the stage name of the run's timing and
// moves *mark to now.
func (o *Outcome) lap(mark *time.Time, name string, kind provenance.StageKind) {
	now := time.Now()
	o.Provenance.Timing.Add(name, kind, now.Sub(*mark))
	*mark = now
}

// Profile is one side's CPU profile of one package's benchmarks, taken in
// a round of its own after the measured ones.
type Profile struct {
	Suite, Variant, Package string
	// Data is the profile in pprof format.
	Data []byte
}

// side is one variant's checked-out tree.
type side struct {
	name     string
	worktree string
	commit   string
	// settings are the variant's settings (nil: none).
	settings *config.Variant
	// overlays are the patches' benchmark files laid over this side
	// (the baseline's), one per patch.
	overlays []*overlay
}

// Run measures every suite on the baseline and each candidate. A patch that
// does not apply, or goes past opts.PatchLimits, is a *PatchError. A side that fails to build or run is
// recorded in Outcome.Failures and the rest still runs.
func Run(ctx context.Context, opts Options) (*Outcome, error) {
	if opts.BaseName == "" {
		opts.BaseName = "base"
	}
	if opts.Sandbox == nil {
		return nil, errors.New("runner: no sandbox runner given")
	}
	if len(opts.Candidates) == 0 {
		base, cands, err := VariantCandidates(opts.Suites)
		if err != nil {
			return nil, err
		}
		opts.BaseName, opts.BaseSettings, opts.Candidates = base.Name, base, cands
		if base.Patch != "" {
			return nil, fmt.Errorf("variant %s: the first variant is the baseline and cannot carry a patch; put the patch on a later variant", base.Name)
		}
		if base.Ref != "" {
			opts.Base = base.Ref
		}
	}
	progress := opts.Progress
	if progress == nil {
		progress = io.Discard
	}
	out := &Outcome{}
	out.Provenance.Started = time.Now()
	out.Provenance.Timing = &provenance.Timing{}
	mark := out.Provenance.Started
	out.Provenance.Repo = opts.Repo
	out.Provenance.Sandbox = opts.SandboxName
	for opts.Seed == 0 {
		opts.Seed = rand.Uint64()
	}
	out.Provenance.Seed = opts.Seed

	ws, err := OpenWorkspace(ctx, opts.Repo, opts.CacheDir)
	if err != nil {
		return nil, err
	}
	defer ws.Close()
	ws.Progress = progress
	if opts.GoCaches != nil {
		caches, err := openJobCaches(opts.CacheDir, ws.Dir, opts.GoCaches, progress)
		if err != nil {
			return nil, err
		}
		defer caches.Close()
		out.caches = caches
		opts.Sandbox = modCacheRunner{Runner: opts.Sandbox, dir: caches.modCache}
	}
	if opts.DiskBudget > 0 {
		budget := &diskBudget{Runner: opts.Sandbox, budget: opts.DiskBudget}
		if out.caches != nil {
			budget.trusted = out.caches.modCache
			budget.add(out.caches.dir)
		}
		opts.Sandbox = budget
	}

	baseCommit, err := ws.Resolve(ctx, opts.Base)
	if err != nil {
		return nil, err
	}
	baseRef, baseWhy := opts.Base, ""
	if opts.BaseFromPatch {
		sha, why, note, err := patchBase(opts)
		if err != nil {
			return nil, err
		}
		if sha != "" {
			if c := ws.resolveBase(ctx, sha); c != "" {
				baseWhy = fmt.Sprintf("%s, instead of %s (%s)", why, opts.Base, short(baseCommit))
				baseCommit, baseRef = c, ""
			} else {
				who := "The patch names"
				if opts.PatchBase != "" {
					who = "The series' cover letter names"
				}
				note = fmt.Sprintf("%s base-commit %s (git format-patch --base), which is not in the repository, so the patch was applied on %s (%s) instead", who, short(sha), opts.Base, short(baseCommit))
			}
		}
		if note != "" {
			out.Warnings = append(out.Warnings, note)
			fmt.Fprintf(progress, "perfbot: %s\n", note)
		}
	}
	if baseWhy != "" {
		// The candidates are applied on, and name, the commit itself.
		opts.Base = baseCommit
		fmt.Fprintf(progress, "perfbot: baseline is %s: %s\n", short(baseCommit), baseWhy)
	} else {
		fmt.Fprintf(progress, "perfbot: baseline %s is %s\n", opts.Base, short(baseCommit))
	}
	baseDir, err := ws.Worktree(ctx, opts.BaseName, baseCommit)
	if err != nil {
		return nil, err
	}
	sides := []*side{{name: opts.BaseName, worktree: baseDir, commit: baseCommit, settings: opts.BaseSettings}}
	out.Provenance.Sides = append(out.Provenance.Sides, provenance.Side{Variant: opts.BaseName, Ref: baseRef, Commit: baseCommit, Why: baseWhy, Settings: opts.BaseSettings.Settings()})
	names := map[string]bool{opts.BaseName: true}
	for _, c := range opts.Candidates {
		if names[c.Name] {
			return nil, fmt.Errorf("two variants are named %q: name them apart", c.Name)
		}
		names[c.Name] = true
		s, prov, err := prepareCandidate(ctx, ws, c, sides[0], opts, progress, out)
		if err != nil {
			return nil, err
		}
		s.settings, prov.Settings = c.Settings, c.Settings.Settings()
		sides = append(sides, s)
		out.Provenance.Sides = append(out.Provenance.Sides, prov)
	}
	for _, s := range sides {
		out.Variants = append(out.Variants, s.name)
		if b, ok := opts.Sandbox.(*diskBudget); ok {
			b.add(s.worktree)
		}
	}
	out.lap(&mark, "workspace, worktrees and patches", provenance.StageOverhead)
	out.Provenance.Host = describeHost(ctx)
	out.Provenance.Host.Noise = probeNoise(ctx)
	out.lap(&mark, "host description and noise probe", provenance.StageOverhead)

	for i := range opts.Suites {
		suite := opts.Suites[i]
		var why string
		var kept KeptInstrument
		if suite.AutoInstrument() {
			if k, ok := keptInstrument(opts.Keep, suite.Name); ok {
				kept, suite.Instrument, why = k, k.Instrument, k.Why
				fmt.Fprintf(progress, "perfbot: suite %s: instrument %s (auto, kept for branch %s since %s): %s\n",
					suite.Name, suite.Instrument, k.Branch, short(k.Since), why)
			} else {
				suite.Instrument, why = chooseInstrument(out.Provenance.Host.Noise, cmp.Or(opts.TargetPct, defaultTargetPct), valgrindMissing())
				fmt.Fprintf(progress, "perfbot: suite %s: instrument %s (auto): %s\n", suite.Name, suite.Instrument, why)
			}
		}
		first := len(out.Provenance.Suites)
		if err := runSuite(ctx, &suite, sides, opts, progress, out); err != nil {
			return nil, err
		}
		for j := first; j < len(out.Provenance.Suites) && why != ""; j++ {
			p := &out.Provenance.Suites[j]
			p.Instrument, p.InstrumentWhy = suite.Instrument, why
			p.InstrumentBranch, p.InstrumentSince = kept.Branch, kept.Since
		}
	}
	out.Provenance.Finished = time.Now()
	out.Provenance.Timing.Wall = out.Provenance.Finished.Sub(out.Provenance.Started).Seconds()
	return out, nil
}

func prepareCandidate(ctx context.Context, ws *Workspace, c Candidate, base *side, opts Options, progress io.Writer, out *Outcome) (*side, provenance.Side, error) {
	baseCommit, baseDir := base.commit, base.worktree
	prov := provenance.Side{Variant: c.Name}
	if c.Patch == "" && c.Ref == "" {
		// Same code, other settings: share the baseline's worktree.
		prov.Ref, prov.Commit = opts.Base, baseCommit
		fmt.Fprintf(progress, "perfbot: %s runs %s under its own settings\n", c.Name, short(baseCommit))
		return &side{name: c.Name, worktree: baseDir, commit: baseCommit}, prov, nil
	}
	if c.Patch == "" {
		commit, err := ws.Resolve(ctx, c.Ref)
		if c.Commit != "" {
			moved := commit
			if !gitpatch.IsCommitHash(c.Commit) {
				return nil, prov, fmt.Errorf("candidate %s: commit %q is not a full commit id", c.Name, c.Commit)
			}
			if commit = ws.resolveBase(ctx, c.Commit); commit == "" {
				return nil, prov, &MissingCommitError{Commit: c.Commit, Ref: c.Ref, Source: ws.Source}
			}
			if err == nil && moved != commit {
				fmt.Fprintf(progress, "perfbot: %s moved to %s since the request; %s, the commit approved, is measured\n", c.Ref, short(moved), short(commit))
			}
			err = nil
		}
		if err != nil {
			return nil, prov, err
		}
		t, err := ws.checkout(ctx, c.Name, commit)
		if err != nil {
			return nil, prov, err
		}
		prov.Ref, prov.Commit = c.Ref, commit
		fmt.Fprintf(progress, "perfbot: %s is %s\n", c.Name, short(commit))
		return &side{name: c.Name, worktree: t.dir, commit: commit}, prov, nil
	}
	patch, err := filepath.Abs(resolvePatch(c.Patch, opts.Repo))
	if err != nil {
		return nil, prov, err
	}
	if _, err := os.Stat(patch); err != nil {
		return nil, prov, fmt.Errorf("patch %s: %w", c.Patch, err)
	}
	t, err := ws.checkout(ctx, c.Name, baseCommit)
	if err != nil {
		return nil, prov, err
	}
	subject, err := applyPatch(ctx, t, patch, opts.PatchLimits)
	if err != nil {
		var pe *PatchError
		if errors.As(err, &pe) {
			pe.Patch = c.Patch
		}
		return nil, prov, err
	}
	commit, err := t.git(ctx, "rev-parse", "HEAD")
	if err != nil {
		return nil, prov, err
	}
	prov.Ref, prov.Commit, prov.Patch, prov.PatchSubject = opts.Base, commit, c.Patch, subject
	fmt.Fprintf(progress, "perfbot: %s applied on %s\n", c.Patch, short(baseCommit))

	changed, err := changedFiles(ctx, t, baseCommit)
	if err != nil {
		return nil, prov, err
	}
	var globs []string
	for _, s := range opts.Suites {
		if len(s.BenchFiles) > 0 {
			globs = append(globs, s.BenchFiles...)
		} else if s.Preset == "go" {
			globs = append(globs, defaultGoBenchFiles...)
		}
	}
	copied, notes, err := overlayBenchFiles(t.dir, baseDir, changed, globs)
	if err != nil {
		return nil, prov, err
	}
	for _, n := range notes {
		out.Warnings = append(out.Warnings, n)
		fmt.Fprintf(progress, "perfbot: %s\n", n)
	}
	if len(copied) > 0 {
		ov := &overlay{patch: c.Patch, files: copied, note: overlayNote(c.Patch, opts.BaseName, copied)}
		base.overlays = append(base.overlays, ov)
		out.Warnings = append(out.Warnings, ov.note)
		fmt.Fprintf(progress, "perfbot: %s\n", ov.note)
	}
	return &side{name: c.Name, worktree: t.dir, commit: commit}, prov, nil
}

func short(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}

// tailOf joins a command's output and keeps its last lines for a report.
func tailOf(res *sandbox.Result, lines int) string {
	s := strings.TrimRight(string(res.Stdout), "\n")
	if e := strings.TrimRight(string(res.Stderr), "\n"); e != "" {
		if s != "" {
			s += "\n"
		}
		s += e
	}
	parts := strings.Split(s, "\n")
	if len(parts) > lines {
		parts = parts[len(parts)-lines:]
	}
	if res.Dropped > 0 {
		parts = append(parts, fmt.Sprintf("[%d more bytes of output cut at the output limit]", res.Dropped))
	}
	if res.Note != "" {
		// Which limit stopped the command, and at what value.
		parts = append(parts, "["+res.Note+"]")
	}
	return strings.Join(parts, "\n")
}
