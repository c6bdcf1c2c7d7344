package runner

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/internal/pkgfile"
	"github.com/perfbot/perfbot/internal/safefile"
	"github.com/perfbot/perfbot/parse"
	"github.com/perfbot/perfbot/provenance"
	"github.com/perfbot/perfbot/sandbox"
)

// goPackage is a package with benchmarks and its compiled test binary.
type goPackage struct {
	importPath string
	dir        string
	// rel is dir relative to the worktree.
	rel    string
	binary string
}

// goSide runs a Go repository's benchmarks on one side: each package's test
// binary is built once, then every round runs each binary with -test.count=1.
type goSide struct {
	suite  *config.Suite
	side   *side
	pkgs   []goPackage
	env    []string
	opts   Options
	out    *Outcome
	failed map[string]bool
	// extra are the variant's flags for the test binary.
	extra []string
	// vr holds the variant's session, where the rounds run when the
	// suite has setup.
	vr *variantRun
	// scratch is the side's scratch directory (cachegrind's output).
	scratch string
	// sim lists each package's benchmarks run under CPU simulation.
	sim map[string][]simBench
	// simDone counts each benchmark's simulated rounds.
	simDone map[string]int
}

// args are the test binary's flags; names, when not nil, narrow the
// suite's -bench pattern to those top-level benchmarks (without their
// "Benchmark" prefix).
func (g *goSide) args(names []string) []string {
	o := g.suite.Go
	bench := o.Bench
	if bench == "" {
		bench = "."
	}
	if names != nil {
		quoted := make([]string, len(names))
		for i, n := range names {
			quoted[i] = regexp.QuoteMeta(n)
		}
		top := "^Benchmark(?:" + strings.Join(quoted, "|") + ")$"
		// The suite's pattern chose these benchmarks already; what it
		// says below the top level (after its first slash) still
		// applies.
		if _, sub, ok := strings.Cut(bench, "/"); ok {
			top += "/" + sub
		}
		bench = top
	}
	args := []string{"-test.run", "^$", "-test.bench", bench, "-test.count", "1"}
	if o.Benchmem == nil || *o.Benchmem {
		args = append(args, "-test.benchmem")
	}
	if o.Benchtime != "" {
		args = append(args, "-test.benchtime", o.Benchtime)
	}
	args = append(args, g.extra...)
	return args
}

// prepareGo lists the packages of a go suite on one side and builds each
// one's test binary. The variant's env applies to the build and the runs
// (GOAMD64=v3 against v1, GOGC=off against the default); its args are
// added to the test binary's flags (-test.cpu 4).
func prepareGo(ctx context.Context, suite *config.Suite, s *side, vr *variantRun, opts Options, out *Outcome) (suiteSide, []string, error) {
	g := &goSide{suite: suite, side: s, opts: opts, out: out, failed: map[string]bool{}, vr: vr}
	g.env, g.scratch = vr.env, vr.scratch
	if vr.settings != nil && vr.settings.Args != "" {
		g.extra = strings.Fields(config.Expand(vr.settings.Args, nil, vr.builtin(s, 0)))
	}
	pattern := suite.Go.Packages
	if pattern == "" {
		pattern = "./..."
	}
	root, err := suiteWorkDir(suite, s)
	if err != nil {
		out.Failures = append(out.Failures, provenance.Failure{Variant: s.name, Stage: "build", Message: fmt.Sprintf("suite %s: %v", suite.Name, err)})
		return nil, nil, nil
	}
	list, err := opts.Sandbox.Run(ctx, sandbox.Spec{
		Argv: []string{"go", "list", "-e", "-f", "{{.ImportPath}}\t{{.Dir}}\t{{join .TestGoFiles \",\"}},{{join .XTestGoFiles \",\"}},{{join .InvalidGoFiles \",\"}}", pattern},
		Dir:  root, Env: g.env, Timeout: durationOr(suite.BuildTimeout, config.DefaultBuildTimeout), MaxOutput: opts.MaxOutput, Network: sandbox.NoNetwork, Writable: opts.BuildWritable,
	})
	if err != nil {
		return nil, nil, fmt.Errorf("suite %s: go list on %s: %w", suite.Name, s.name, err)
	}
	if !list.OK() {
		out.Failures = append(out.Failures, provenance.Failure{Variant: s.name, Stage: "build", Message: fmt.Sprintf("suite %s: go list %s failed", suite.Name, pattern), LogTail: tailOf(list, 30), Limit: list.Limit})
		return nil, nil, nil
	}
	binDir := filepath.Join(s.worktree, ".perfbot-bin")
	if err := safefile.MkdirAll(s.worktree, ".perfbot-bin"); err != nil {
		return nil, nil, err
	}
	var commands []string
	for _, line := range strings.Split(strings.TrimSpace(string(list.Stdout)), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 3 {
			continue
		}
		// go list ran in the sandbox: a package directory it names is
		// used only inside the worktree.
		rel, err := filepath.Rel(s.worktree, f[1])
		if err != nil || !filepath.IsLocal(rel) {
			out.Failures = append(out.Failures, provenance.Failure{Variant: s.name, Stage: "build", Message: fmt.Sprintf("suite %s: go list put package %s outside the worktree; skipped", suite.Name, f[0])})
			continue
		}
		ok, err := hasBenchmarks(s.worktree, rel, f[2])
		if err != nil {
			out.Failures = append(out.Failures, provenance.Failure{Variant: s.name, Stage: "build", Message: fmt.Sprintf("suite %s: package %s: %v", suite.Name, f[0], err)})
			continue
		}
		if !ok {
			continue
		}
		pkg := goPackage{importPath: f[0], dir: filepath.Join(s.worktree, rel), rel: rel, binary: filepath.Join(binDir, pkgfile.Name(f[0])+".test")}
		spec := sandbox.Spec{
			Argv: []string{"go", "test", "-c", "-o", pkg.binary, pkg.importPath},
			Dir:  root, Env: g.env, Timeout: durationOr(suite.BuildTimeout, config.DefaultBuildTimeout), MaxOutput: opts.MaxOutput, Network: sandbox.NoNetwork, Writable: opts.BuildWritable,
		}
		build, err := opts.Sandbox.Run(ctx, spec)
		if err != nil {
			return nil, nil, fmt.Errorf("suite %s: build %s on %s: %w", suite.Name, pkg.importPath, s.name, err)
		}
		also := ""
		// A patch's benchmark file laid over this package may call what
		// only the patch has: build the package again without the files
		// the compiler names, then, if it still fails, without the rest.
		var notes []string
		gone := false
		for {
			if build.OK() || build.Limit != "" {
				break
			}
			more, empty, err := s.dropOverlay(rel, root, string(build.Stdout)+string(build.Stderr), out)
			if err != nil {
				return nil, nil, fmt.Errorf("suite %s: %s on %s: %w", suite.Name, pkg.importPath, s.name, err)
			}
			if len(more) == 0 {
				break
			}
			notes = append(notes, more...)
			if gone = empty; gone {
				break
			}
			if build, err = opts.Sandbox.Run(ctx, spec); err != nil {
				return nil, nil, fmt.Errorf("suite %s: build %s on %s: %w", suite.Name, pkg.importPath, s.name, err)
			}
			also = ", also without the patch's benchmark files"
		}
		if gone {
			addNotes(notes, out, opts.Progress)
			continue
		}
		if build.OK() {
			addNotes(notes, out, opts.Progress)
		}
		if !build.OK() {
			out.Failures = append(out.Failures, provenance.Failure{Variant: s.name, Stage: "build", Message: fmt.Sprintf("suite %s: go test -c %s failed%s", suite.Name, pkg.importPath, also), LogTail: tailOf(build, 30), Limit: build.Limit})
			continue
		}
		g.pkgs = append(g.pkgs, pkg)
		commands = append(commands, fmt.Sprintf("go test -c %s && %s.test %s", pkg.importPath, filepath.Base(pkg.importPath), strings.Join(g.args(nil), " ")))
	}
	if len(g.pkgs) == 0 {
		if len(out.Failures) == 0 || out.Failures[len(out.Failures)-1].Variant != s.name {
			out.Failures = append(out.Failures, provenance.Failure{Variant: s.name, Stage: "build", Message: fmt.Sprintf("suite %s: no package matching %s has benchmarks", suite.Name, pattern)})
		}
		return nil, commands, nil
	}
	if _, sim := suite.Instruments(); sim {
		if err := g.prepareSim(ctx); err != nil {
			return nil, nil, err
		}
		if len(g.pkgs) == 0 {
			return nil, commands, nil
		}
	}
	return g, commands, nil
}

// hasBenchmarks reports whether any of a package's test files (a comma
// list of names in the directory rel of the worktree) defines a benchmark.
// The files are the patch's: each is read without following a link, only
// if it is a regular file, and at most safefile.MaxSource bytes of it. Every
// file is checked, so that a package with a file perfbot refuses fails
// before it is built.
func hasBenchmarks(worktree, rel, files string) (bool, error) {
	found := false
	for _, f := range strings.Split(files, ",") {
		if f == "" {
			continue
		}
		data, err := safefile.ReadFile(worktree, filepath.ToSlash(filepath.Join(rel, f)), safefile.MaxSource)
		if err != nil {
			return false, err
		}
		found = found || bytes.Contains(data, []byte("func Benchmark"))
	}
	return found, nil
}

// goUnit names a Go package's top-level benchmark as adaptive sampling
// runs it: the package's import path and the benchmark's name without its
// "Benchmark" prefix, sub-benchmarks and -GOMAXPROCS suffix.
func goUnit(importPath, benchmark string) string {
	top, _, _ := strings.Cut(benchmark, "/")
	// Go identifiers have no '-': the first one starts the suffix.
	top, _, _ = strings.Cut(top, "-")
	return "go " + importPath + " " + top
}

func (g *goSide) round(ctx context.Context, r int, only map[string]bool) ([]*bench.Result, []string, error) {
	wall, sim := g.suite.Instruments()
	var results []*bench.Result
	var units []string
	if wall {
		rs, us, err := g.wallRound(ctx, r, only)
		if err != nil {
			return nil, nil, err
		}
		results, units = rs, us
	}
	if sim {
		rs, us, err := g.simRound(ctx, r, only)
		if err != nil {
			return nil, nil, err
		}
		results, units = append(results, rs...), append(units, us...)
	}
	return results, units, nil
}

// wallRound runs each package's test binary once and reads its timings.
func (g *goSide) wallRound(ctx context.Context, r int, only map[string]bool) ([]*bench.Result, []string, error) {
	var results []*bench.Result
	var units []string
	for _, pkg := range g.pkgs {
		var names []string
		if only != nil {
			prefix := "go " + pkg.importPath + " "
			for u := range only {
				if name, ok := strings.CutPrefix(u, prefix); ok {
					names = append(names, name)
				}
			}
			if len(names) == 0 {
				continue
			}
			slices.Sort(names)
		}
		res, err := g.opts.Sandbox.Run(ctx, sandbox.Spec{
			Argv: append([]string{pkg.binary}, g.args(names)...),
			Dir:  pkg.dir, Env: g.env, Timeout: durationOr(g.suite.Timeout, config.DefaultTimeout), MaxOutput: g.opts.MaxOutput, Network: roundNetwork(g.suite),
			Session: g.vr.session,
			// The test binary and the rest of the tree (testdata of other
			// packages) are read-only; only the package's directory is
			// writable.
			ReadOnly: []string{g.side.worktree},
		})
		g.out.commandRan(res)
		if err != nil {
			return nil, nil, fmt.Errorf("suite %s: run %s on %s: %w", g.suite.Name, pkg.importPath, g.side.name, err)
		}
		if !res.OK() && !g.failed[pkg.importPath] {
			g.failed[pkg.importPath] = true
			msg := fmt.Sprintf("suite %s: benchmarks of %s exited with status %d", g.suite.Name, pkg.importPath, res.ExitCode)
			if res.Limit == sandbox.LimitTimeout {
				msg = fmt.Sprintf("suite %s: benchmarks of %s ran past the %s timeout", g.suite.Name, pkg.importPath, durationOr(g.suite.Timeout, config.DefaultTimeout))
			}
			g.out.Failures = append(g.out.Failures, provenance.Failure{Variant: g.side.name, Stage: "run", Message: msg, LogTail: tailOf(res, 30), Limit: res.Limit})
		}
		name := fmt.Sprintf("%s/%s round %d (%s)", g.suite.Name, g.side.name, r+1, pkg.importPath)
		before := len(results)
		err = parse.GoBench{}.Parse(ctx, bytes.NewReader(res.Stdout), name, func(b *bench.Result) error {
			if b.Group == "" {
				b.Group = pkg.importPath
			}
			results = append(results, b)
			units = append(units, goUnit(pkg.importPath, b.Benchmark))
			return nil
		})
		if err != nil {
			g.out.Failures = append(g.out.Failures, provenance.Failure{Variant: g.side.name, Stage: "parse", Message: err.Error()})
		}
		if res.Limit == sandbox.LimitOutput {
			g.out.Cuts = append(g.out.Cuts, cutOf(g.side.name, name, res, results[before:]))
		}
	}
	return results, units, nil
}

// profile runs each package's benchmarks once more with -test.cpuprofile
// and returns the profiles; a package whose run fails is skipped with a
// warning, as the profile only illustrates the comparison.
func (g *goSide) profile(ctx context.Context) ([]Profile, error) {
	var out []Profile
	for _, pkg := range g.pkgs {
		path := filepath.Join(pkg.dir, ".perfbot-cpu.pprof")
		rel := filepath.ToSlash(filepath.Join(pkg.rel, ".perfbot-cpu.pprof"))
		_ = safefile.Remove(g.side.worktree, rel)
		res, err := g.opts.Sandbox.Run(ctx, sandbox.Spec{
			Argv: append(append([]string{pkg.binary}, g.args(nil)...), "-test.cpuprofile", path),
			Dir:  pkg.dir, Env: g.env, Timeout: durationOr(g.suite.Timeout, config.DefaultTimeout), MaxOutput: g.opts.MaxOutput, Network: roundNetwork(g.suite),
			ReadOnly: []string{g.side.worktree}, Session: g.vr.session,
		})
		if err != nil {
			return nil, fmt.Errorf("suite %s: profile %s on %s: %w", g.suite.Name, pkg.importPath, g.side.name, err)
		}
		var data []byte
		var rerr error
		if res.OK() {
			data, rerr = safefile.ReadFile(g.side.worktree, rel, safefile.MaxResult)
		}
		_ = safefile.Remove(g.side.worktree, rel)
		if !res.OK() {
			g.out.Warnings = append(g.out.Warnings, fmt.Sprintf("suite %s: no CPU profile of %s on %s (exit status %d)", g.suite.Name, pkg.importPath, g.side.name, res.ExitCode))
			continue
		}
		if rerr != nil {
			g.out.Warnings = append(g.out.Warnings, fmt.Sprintf("suite %s: no CPU profile of %s on %s: %v", g.suite.Name, pkg.importPath, g.side.name, rerr))
			continue
		}
		out = append(out, Profile{Suite: g.suite.Name, Variant: g.side.name, Package: pkg.importPath, Data: data})
	}
	return out, nil
}

// cutOf describes a run whose output was cut at the output cap: rs are the
// results read from what was kept.
func cutOf(variant, run string, res *sandbox.Result, rs []*bench.Result) provenance.Cut {
	c := provenance.Cut{Variant: variant, Run: run, Kept: int64(len(res.Stdout) + len(res.Stderr)), Dropped: res.Dropped}
	if len(rs) > 0 {
		c.Last = rs[len(rs)-1].FullName()
	}
	return c
}
