package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/internal/safefile"
	"github.com/perfbot/perfbot/parse"
	"github.com/perfbot/perfbot/provenance"
	"github.com/perfbot/perfbot/sandbox"
)

// suiteSide is what one suite needs to run one round on one side.
type suiteSide interface {
	// round runs one round of the units in only (every unit when only
	// is nil) and returns its results with the unit of each, or records
	// failures.
	round(ctx context.Context, r int, only map[string]bool) ([]*bench.Result, []string, error)
}

// sampling is a suite's count, max_count and budget, defaults filled in
// (config.DefaultGoCount and the others): a go suite that sets none of
// them samples adaptively, quiet benchmarks stopping after 6 rounds, noisy
// ones getting up to 40, and the suite spending no more benchmark runs
// than 10 fixed rounds would (cmd/perfbot-eval: 92% of 5% changes
// detected, against 78% with 10 rounds of every benchmark); otherwise
// count is 10 for go and 5 for command suites.
func sampling(suite *config.Suite) (count, maxCount int, budget config.Budget) {
	count, maxCount, budget = suite.Count, suite.MaxCount, suite.Budget
	if wall, _ := suite.Instruments(); !wall && count == 0 && maxCount == 0 && budget.IsZero() {
		// Simulated counts spread by well under 1%: a few rounds decide.
		return config.DefaultSimCount, config.DefaultSimMaxCount, budget
	}
	switch {
	case count > 0:
	case suite.Preset == "go" && maxCount == 0 && budget.IsZero():
		return config.DefaultGoCount, config.DefaultGoMaxCount, config.Budget{Rounds: config.DefaultGoBudgetRounds}
	case suite.Preset == "go":
		count = config.DefaultGoFixedCount
	default:
		count = config.DefaultCommandCount
	}
	if maxCount > 0 {
		count = min(count, maxCount)
	}
	return count, maxCount, budget
}

// suiteWarmup is a suite's number of discarded rounds per side: by default
// one for command suites (caches, JIT compilers and servers settle in it),
// none for the go preset, whose test binary already runs every benchmark
// once before it times it.
func suiteWarmup(suite *config.Suite) int {
	switch {
	case suite.Warmup != nil:
		return max(*suite.Warmup, 0)
	case suite.Preset == "go":
		return 0
	}
	return 1
}

func runSuite(ctx context.Context, suite *config.Suite, sides []*side, opts Options, progress io.Writer, out *Outcome) error {
	count, maxCount, budget := sampling(suite)
	var ready []*side
	runners := map[string]suiteSide{}
	var commands []string
	runs := map[string]*variantRun{}
	defer func() {
		for _, vr := range runs {
			vr.remove()
		}
	}()
	sideOpts := map[string]Options{}
	for _, s := range sides {
		sideOpts[s.name] = opts
		if out.caches != nil {
			o, err := out.caches.forSide(opts, s)
			if err != nil {
				return err
			}
			sideOpts[s.name] = o
		}
		vr, err := newVariantRun(suite, s, sideOpts[s.name])
		if err != nil {
			return err
		}
		runs[s.name] = vr
	}
	mark := time.Now()
	out.lap(&mark, "suite preparation", provenance.StageOverhead)
	for _, s := range sides {
		fmt.Fprintf(progress, "perfbot: suite %s: building %s\n", suite.Name, s.name)
		opts.step(Step{Stage: "build", Suite: suite.Name, Variant: s.name, Sides: len(sides)})
		var (
			ss   suiteSide
			cmds []string
			err  error
		)
		if out.caches != nil {
			failed, err := out.caches.fetchModules(ctx, suite, s, filepath.Join(s.worktree, suite.Dir), sideOpts[s.name])
			if err == nil && failed == nil && suite.Fetch != "" {
				failed, err = out.caches.fetchCommand(ctx, suite, s, runs[s.name], sideOpts[s.name])
			}
			if err != nil {
				return err
			}
			if failed != nil {
				out.Failures = append(out.Failures, *failed)
				continue
			}
		}
		if suite.Preset == "go" {
			ss, cmds, err = prepareGo(ctx, suite, s, runs[s.name], sideOpts[s.name], out)
		} else {
			ss, cmds, err = prepareCommand(ctx, suite, s, runs[s.name], sideOpts[s.name], out)
		}
		if err != nil {
			return err
		}
		if len(commands) == 0 {
			commands = cmds
		}
		if ss != nil {
			runners[s.name] = ss
			ready = append(ready, s)
		}
	}
	out.lap(&mark, "builds", provenance.StageBuild)
	warmup := suiteWarmup(suite)
	out.Provenance.Suites = append(out.Provenance.Suites, provenance.Suite{Name: suite.Name, Commands: commands, Rounds: count, Warmup: warmup})
	prov := &out.Provenance.Suites[len(out.Provenance.Suites)-1]
	ready, stop := startVariants(ctx, suite, ready, runs, opts, progress, out)
	out.lap(&mark, "setup and teardown", provenance.StageBuild)
	defer func() {
		mark := time.Now()
		stop()
		out.lap(&mark, "setup and teardown", provenance.StageBuild)
	}()
	if len(ready) < 2 {
		fmt.Fprintf(progress, "perfbot: suite %s: fewer than two sides built; nothing to compare\n", suite.Name)
	}
	fence := newFence(suite, ready, runs, prov, progress)
	defer fence.release()
	var names []string
	for _, s := range ready {
		names = append(names, s.name)
	}
	rng := suiteRNG(opts.Seed, suite.Name)
	// index numbers every round of the suite, warm-ups included, so that
	// {round} never repeats.
	index := 0
	ad := newAdaptive(count, maxCount, budget, len(names), opts)
	// step is the round play runs, for Options.Step.
	var step Step
	// play runs one round of each variant in order, of the units in only
	// (all when nil), and returns the units it ran.
	play := func(order []string, label string, keep bool, only []string) ([]string, error) {
		var set map[string]bool
		if only != nil {
			set = map[string]bool{}
			for _, u := range only {
				set[u] = true
			}
		}
		ran := map[string]bool{}
		for _, name := range order {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			fmt.Fprintf(progress, "perfbot: suite %s: %s: %s\n", suite.Name, label, name)
			step.Variant = name
			opts.step(step)
			mark, out.commands = time.Now(), 0
			results, units, err := fence.round(ctx, name, func() ([]*bench.Result, []string, error) { return runners[name].round(ctx, index, set) })
			if err != nil {
				return nil, err
			}
			// The round's time outside its commands is perfbot's:
			// starting sandboxes, reading the output.
			spent := time.Since(mark)
			out.Provenance.Timing.Add("benchmark commands", provenance.StageBenchmark, out.commands)
			out.Provenance.Timing.Add("rounds outside the commands (sandbox, parsing)", provenance.StageOverhead, spent-out.commands)
			if !keep {
				out.Provenance.RunOrder = append(out.Provenance.RunOrder, name+"(warm-up)")
				continue
			}
			for _, res := range results {
				res.Variant = name
			}
			ad.ran(results, units)
			for _, u := range units {
				if u != "" {
					ran[u] = true
				}
			}
			out.Results = append(out.Results, results...)
			out.Provenance.RunOrder = append(out.Provenance.RunOrder, name)
		}
		index++
		if only != nil {
			return only, nil
		}
		return slices.Sorted(maps.Keys(ran)), nil
	}
	for w, order := range schedule(names, warmup, rng) {
		step = Step{Stage: "warm-up", Suite: suite.Name, Round: w + 1, Rounds: warmup, Sides: len(names)}
		if _, err := play(order, fmt.Sprintf("warm-up %d/%d", w+1, warmup), false, nil); err != nil {
			return err
		}
	}
	first := len(out.Results)
	started := time.Now()
	rounds, next := 0, count
	var only []string
	for next > 0 {
		planned := rounds + next
		for _, order := range schedule(names, next, rng) {
			label := fmt.Sprintf("round %d/%s", rounds+1, ad.of(planned))
			step = Step{Stage: "run", Suite: suite.Name, Round: rounds + 1, Rounds: planned, Sides: len(names)}
			if ad.on {
				step.MaxRounds, step.Budget = maxCount, budget.Time
			}
			if only != nil {
				label = fmt.Sprintf("round %d (%d undecided)", rounds+1, len(only))
			}
			ran, err := play(order, label, true, only)
			if err != nil {
				return err
			}
			ad.counted(ran)
			rounds++
		}
		var why string
		only, next, why = ad.plan(time.Since(started), out.Results[first:], names)
		if next > 0 {
			fmt.Fprintf(progress, "perfbot: suite %s: %s; %d more round(s) of %d benchmark(s)\n", suite.Name, why, next, len(only))
		} else if why != "" {
			prov.Stopped = why
			fmt.Fprintf(progress, "perfbot: suite %s: stopped after %d rounds: %s\n", suite.Name, rounds, why)
		}
	}
	if ad.on {
		prov.Runs = ad.runs()
	}
	fence.finish(out.Results[first:], out)
	mark = time.Now()
	if suite.Preset == "go" && suite.Go.CPUProfile {
		for _, name := range names {
			g, ok := runners[name].(*goSide)
			if !ok {
				continue
			}
			fmt.Fprintf(progress, "perfbot: suite %s: CPU profile of %s\n", suite.Name, name)
			profs, err := g.profile(ctx)
			if err != nil {
				return err
			}
			out.Profiles = append(out.Profiles, profs...)
		}
	}
	if suite.Preset == "go" && suite.Go.CPUProfile {
		out.lap(&mark, "CPU profiles", provenance.StageOverhead)
	}
	prov.Rounds = rounds
	if w := perfStatWarning(suite, runners); w != "" {
		out.Warnings = append(out.Warnings, w)
	}
	return nil
}

// commandSide runs a suite's command template on one side.
type commandSide struct {
	suite  *config.Suite
	side   *side
	dir    string
	env    []string
	opts   Options
	out    *Outcome
	failed map[string]bool
	vr     *variantRun
	// perf wraps each command in perf stat when the suite asks for it.
	perf *perfStat
	// simRounds counts the rounds run under cachegrind.
	simRounds int
}

func prepareCommand(ctx context.Context, suite *config.Suite, s *side, vr *variantRun, opts Options, out *Outcome) (suiteSide, []string, error) {
	dir, err := suiteWorkDir(suite, s)
	if err != nil {
		out.Failures = append(out.Failures, provenance.Failure{Variant: s.name, Stage: "build", Message: fmt.Sprintf("suite %s: %v", suite.Name, err)})
		return nil, nil, nil
	}
	cs := &commandSide{suite: suite, side: s, dir: dir, opts: opts, out: out, failed: map[string]bool{}, vr: vr}
	cs.env = vr.env
	builtin := vr.builtin(s, 0)
	if suite.PerfStat {
		if perfAvailable() {
			cs.perf = newPerfStat(suite, vr.scratch)
		} else if !hasWarning(out, perfMissing(suite)) {
			out.Warnings = append(out.Warnings, perfMissing(suite))
		}
	}
	var commands []string
	if suite.Build != "" {
		build := config.Expand(suite.Build, nil, builtin)
		commands = append(commands, "build: "+build)
		spec := sandbox.Spec{
			Argv: []string{"/bin/sh", "-c", build}, Dir: cs.dir, Env: cs.env,
			Timeout: durationOr(suite.BuildTimeout, config.DefaultBuildTimeout), MaxOutput: opts.MaxOutput, Network: sandbox.NoNetwork,
			Writable: append(append([]string(nil), opts.BuildWritable...), vr.datadir),
		}
		res, err := opts.Sandbox.Run(ctx, spec)
		if err != nil {
			return nil, nil, fmt.Errorf("suite %s: build %s: %w", suite.Name, s.name, err)
		}
		also := ""
		if !res.OK() && res.Limit == "" {
			// The patch's benchmark files laid over this side may call
			// what only the patch has: build again without them.
			notes, _, err := s.dropOverlay("", cs.dir, string(res.Stdout)+string(res.Stderr), out)
			if err != nil {
				return nil, nil, fmt.Errorf("suite %s: %s: %w", suite.Name, s.name, err)
			}
			if len(notes) > 0 {
				if res, err = opts.Sandbox.Run(ctx, spec); err != nil {
					return nil, nil, fmt.Errorf("suite %s: build %s: %w", suite.Name, s.name, err)
				}
				if res.OK() {
					addNotes(notes, out, opts.Progress)
				}
				also = ", also without the patch's benchmark files"
			}
		}
		if !res.OK() {
			out.Failures = append(out.Failures, provenance.Failure{Variant: s.name, Stage: "build", Message: fmt.Sprintf("suite %s: build exited with status %d%s", suite.Name, res.ExitCode, also), LogTail: tailOf(res, 30), Limit: res.Limit})
			return nil, commands, nil
		}
	}
	for _, pt := range suite.Matrix.Points() {
		cmd := vr.command(suite.Command, pt, builtin)
		if cs.perf != nil {
			cmd = strings.Join(cs.perf.wrap(cmd)[:7], " ") + " -- " + cmd
		}
		commands = append(commands, cmd)
	}
	return cs, commands, nil
}

// wallRound runs the command at each matrix point and parses its output.
func (cs *commandSide) wallRound(ctx context.Context, r int, only map[string]bool) ([]*bench.Result, []string, error) {
	var results, counters []*bench.Result
	var units, counterUnits []string
	builtin := cs.vr.builtin(cs.side, r+1)
	for i, pt := range cs.suite.Matrix.Points() {
		unit := fmt.Sprintf("point %d", i+1)
		if only != nil && !only[unit] {
			continue
		}
		cmd := cs.vr.command(cs.suite.Command, pt, builtin)
		argv := []string{"/bin/sh", "-c", cmd}
		if cs.perf != nil {
			argv = cs.perf.wrap(cmd)
		}
		// outFile is the result file relative to the worktree; the
		// command writes it, so it is read as the patch's file.
		var outFile string
		if f, ok := strings.CutPrefix(cs.suite.Output, "file:"); ok {
			outFile = filepath.ToSlash(filepath.Join(cs.suite.Dir, config.Expand(f, pt, builtin)))
			// A stale result must not pass for this round's. The
			// removal follows no symbolic link: the worktree is the
			// patch's.
			if err := safefile.Remove(cs.side.worktree, outFile); err != nil {
				if !cs.failed["remove "+outFile] {
					cs.failed["remove "+outFile] = true
					cs.out.Failures = append(cs.out.Failures, provenance.Failure{Variant: cs.side.name, Stage: "run", Message: fmt.Sprintf("suite %s: result file %v", cs.suite.Name, err)})
				}
				continue
			}
		}
		res, err := cs.opts.Sandbox.Run(ctx, sandbox.Spec{
			Argv: argv, Dir: cs.dir, Env: cs.env,
			Timeout: durationOr(cs.suite.Timeout, config.DefaultTimeout), MaxOutput: cs.opts.MaxOutput, Network: roundNetwork(cs.suite),
			Writable: cs.vr.roundWritable(), Session: cs.vr.session,
		})
		cs.out.commandRan(res)
		if err != nil {
			return nil, nil, fmt.Errorf("suite %s: %s: %w", cs.suite.Name, cs.side.name, err)
		}
		if !res.OK() && !cs.failed[cmd] {
			cs.failed[cmd] = true
			cs.out.Failures = append(cs.out.Failures, provenance.Failure{Variant: cs.side.name, Stage: "run", Message: fmt.Sprintf("suite %s: %s exited with status %d", cs.suite.Name, cmd, res.ExitCode), LogTail: tailOf(res, 30), Limit: res.Limit})
		}
		name := fmt.Sprintf("%s/%s round %d (%s)", cs.suite.Name, cs.side.name, r+1, cmd)
		if cs.perf != nil {
			prs, err := cs.perf.results(ctx, cs.suite, pt, name+" perf stat")
			if err != nil && res.OK() {
				cs.out.Failures = append(cs.out.Failures, provenance.Failure{Variant: cs.side.name, Stage: "parse", Message: err.Error()})
			}
			counters = append(counters, prs...)
			// Counters ride along with their point's runs; they never
			// keep it undecided (the unit "" is not sampled for).
			for range prs {
				counterUnits = append(counterUnits, "")
			}
		}
		var data []byte
		switch {
		case outFile != "":
			data, err = safefile.ReadFile(cs.side.worktree, outFile, safefile.MaxResult)
			if err != nil {
				var se *safefile.Error
				if res.OK() || (errors.As(err, &se) && !errors.Is(err, os.ErrNotExist)) {
					cs.out.Failures = append(cs.out.Failures, provenance.Failure{Variant: cs.side.name, Stage: "parse", Message: fmt.Sprintf("suite %s: result file %v", cs.suite.Name, err)})
				}
				continue
			}
		case cs.suite.Output == "stderr":
			data = res.Stderr
		case cs.suite.Output == "combined":
			data = append(append([]byte(nil), res.Stdout...), res.Stderr...)
		default:
			data = res.Stdout
		}
		rs, err := parse.Bytes(ctx, data, name, cs.suite.Parser)
		if res.Limit == sandbox.LimitOutput {
			cs.out.Cuts = append(cs.out.Cuts, cutOf(cs.side.name, name, res, rs))
		}
		if err != nil {
			if res.OK() {
				cs.out.Failures = append(cs.out.Failures, provenance.Failure{Variant: cs.side.name, Stage: "parse", Message: err.Error(), LogTail: tailOf(res, 10)})
			}
			continue
		}
		for _, res := range rs {
			res.Params = withMatrix(pt, res.Params)
			units = append(units, unit)
		}
		results = append(results, rs...)
	}
	// The counters come after the benchmark's own results, so that a
	// report shows them after the numbers they explain.
	return append(results, counters...), append(units, counterUnits...), nil
}

// withMatrix puts the matrix point's parameters before the parsed ones,
// unless the tool already reported a parameter of the same name; then the
// matrix's value wins where the two differ (go-ycsb reports "workload" as
// the workload class, "core", for every workload file swept), so that
// distinct matrix points never merge into one row.
func withMatrix(pt []config.Param, ps bench.Params) bench.Params {
	var out bench.Params
	matrix := map[string]string{}
	for _, p := range pt {
		matrix[p.Name] = p.Values[0]
		if _, ok := ps.Get(p.Name); !ok {
			out = append(out, bench.Param{Name: p.Name, Value: p.Values[0]})
		}
	}
	for _, p := range ps {
		if v, ok := matrix[p.Name]; ok {
			p.Value = v
		}
		out = append(out, p)
	}
	return out
}

func envList(m map[string]string) []string {
	var out []string
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

func durationOr(d config.Duration, def time.Duration) time.Duration {
	if d > 0 {
		return time.Duration(d)
	}
	return def
}

// suiteWorkDir is the directory of suite's commands in the side's
// worktree: suite.Dir, checked to be a directory reached through no
// symbolic link (at any component) and no "..". Root lends it to the
// sandbox user and removes and reads result files in it, and a patch
// shapes the worktree: a `dir: harness/go` whose harness the patch made a
// link to a host directory must lead nowhere outside the worktree.
func suiteWorkDir(suite *config.Suite, s *side) (string, error) {
	name := filepath.ToSlash(suite.Dir)
	if name == "" || name == "." {
		return s.worktree, nil
	}
	if err := safefile.CheckDir(s.worktree, name); err != nil {
		var se *safefile.Error
		if errors.As(err, &se) {
			return "", fmt.Errorf("dir: %s: %s", suite.Dir, se.Problem)
		}
		return "", fmt.Errorf("dir: %s: %w", suite.Dir, err)
	}
	return filepath.Join(s.worktree, name), nil
}
