package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/parse"
	"github.com/perfbot/perfbot/provenance"
	"github.com/perfbot/perfbot/sandbox"
)

// CPU simulation ("instrument: cpu-sim") runs a benchmark under Valgrind's
// cachegrind, which executes the program on a simulated CPU and counts
// every user-space instruction it retires, with a model of the L1 and
// last-level caches (--cache-sim=yes) for an estimate of cycles. The
// counts hardly depend on the load of the host, which is why they can see
// a 1% change where wall time on a shared machine cannot; they do not see
// syscalls, I/O waits, lock contention or several cores.
//
// A Go benchmark is made as repeatable as possible:
//   - each benchmark (and each sub-benchmark) runs in its own process, with
//     -test.benchtime Nx and again with 2Nx, and the difference of the two
//     counts divided by N is the count per operation: process start-up,
//     package initialisation and the testing package's own work cancel;
//   - GOMAXPROCS=1 and GOGC=off leave the runtime one processor and no
//     garbage collection but the one the testing package forces between
//     runs; GODEBUG=asyncpreemptoff=1 stops signal-based preemption and
//     cpu.rdtscp=off keeps the runtime off RDTSCP, which Valgrind 3.19
//     cannot execute;
//   - address-space randomisation is off (setarch -R);
//   - the counts of the runtime's background work (runtimeBackground: the
//     monitor thread, the forced collection, the scavenger, spinning on
//     locks), which depends on how long the simulation took in wall time,
//     are left out;
//   - N is chosen once per benchmark, shared by every side, so that the
//     smaller run spends about simWork of native CPU time in the loop.
//
// Measured on examples/wal's BenchmarkChecksum on a loaded 2-core VM: the
// per-op counts of repeat runs spread by 1.3% with the runtime's
// background work kept and 0.05-0.15% without it.

// simWork is the native time the smaller of a benchmark's two runs spends
// in its loop by default (20ms: some 10⁷ instructions on an idle host,
// fewer on a loaded one, against a residual noise of a few thousand). It
// is estimated from a short native run, so a loaded host picks a smaller
// N; the counts stay right, their spread grows a little.
const simWork = 20 * time.Millisecond

// simInstructions is the fewest instructions the iterations N of a
// benchmark's smaller run should execute: the residual noise of a run is a
// few thousand instructions, 0.05% of this.
const simInstructions = 1e7

// minSimN and maxSimN bound a benchmark's iteration count under
// simulation.
const (
	minSimN = 2
	maxSimN = 100_000_000
)

// maxSimFile caps the size of a cachegrind output file perfbot reads.
const maxSimFile = 256 << 20

// runtimeBackground matches the Go runtime functions whose work does not
// run on the benchmark's behalf and varies with the wall time a simulated
// run takes: sysmon and what it calls, the forced garbage collection's
// marking, the scavenger, lock spinning, the stack unwinding of
// collections, and the hand-off of the processor that sysmon makes when a
// syscall takes long (in wall time) and its undoing when it returns.
var runtimeBackground = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(runtime\.(sysmon|retake|netpoll|nanotime1|usleep|lock2|unlock2|procyield\w*|osyield|futex|futexsleep|futexwakeup|` +
		`gc[A-Z]\w*|scan[A-Z]\w*|greyobject|findObject|tryDeferToSpanScan|markBits\w*|wbBuf\w*|spanSet\w*|pcvalue|step|findfunc|` +
		`bgscavenge|bgsweep|mergeSummaries|stealWork|incidlelocked|findRunnable|\(\*timers\)\.check|` +
		`\(\*pallocBits\)\.summarize|\(\*pallocData\)\.findScavengeCandidate|\(\*pageAlloc\)\.(update|scavenge\w*|find|sysGrow)|` +
		`\(\*scavenger\w*\)\.\w+|\(\*gcWork\)\.\w+|\(\*spanQueue\)\.\w+|typePointers\.\w+|\(\*unwinder\)\.\w+|\(\*moduledata\)\.textAddr|` +
		`pidleput|pidleget|startm|stopm|mPark|handoffp|checkdead|wirep|acquirep\w*|releasep\w*|checkRunqsNoP|notesleep|notewakeup|` +
		`exitsyscall\w*|setBlockOnExitSyscall|\(\*limiterEvent\)\.\w+|syscallingThread\.\w+)|gcWriteBarrier\w*)(\.abi0)?$`)
})

// simEnv returns env with the settings that pin the Go runtime down for a
// simulated run; the variant's own GODEBUG settings are kept.
func simEnv(env []string) []string {
	out := make([]string, 0, len(env)+4)
	godebug := "asyncpreemptoff=1,cpu.rdtscp=off"
	for _, kv := range env {
		switch {
		case strings.HasPrefix(kv, "GOMAXPROCS="), strings.HasPrefix(kv, "GOGC="):
			continue
		case strings.HasPrefix(kv, "GODEBUG="):
			if v := strings.TrimPrefix(kv, "GODEBUG="); v != "" {
				godebug = v + "," + godebug
			}
			continue
		}
		out = append(out, kv)
	}
	return append(out, "GOMAXPROCS=1", "GOGC=off", "GODEBUG="+godebug)
}

// simWrap returns argv run under cachegrind with address-space
// randomisation off, writing its counts to outFile ("%p" in it becomes
// each process's id); children follows the processes argv starts. With a
// traceLog, Valgrind traces the system calls into that file (with its own
// messages).
func simWrap(outFile, traceLog string, children bool, argv []string) []string {
	a := []string{"setarch", "-R", "valgrind", "--tool=cachegrind", "--cache-sim=yes", "--cachegrind-out-file=" + outFile}
	if traceLog != "" {
		a = append(a, "--trace-syscalls=yes", "--log-file="+traceLog)
	}
	if children {
		a = append(a, "--trace-children=yes")
	}
	return append(a, argv...)
}

// valgrindMissing says what to install when valgrind is not on PATH, or
// returns "".
func valgrindMissing() string {
	if _, err := exec.LookPath("valgrind"); err != nil {
		return "instrument cpu-sim needs valgrind, which is not installed (Debian: apt-get install valgrind)"
	}
	if _, err := exec.LookPath("setarch"); err != nil {
		return "instrument cpu-sim needs setarch (Debian: util-linux)"
	}
	return ""
}

// readSimFile reads a file a sandboxed command wrote: a regular file, not
// a symbolic link, of at most maxSimFile bytes.
func readSimFile(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxSimFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxSimFile {
		return nil, fmt.Errorf("%s is larger than %d MiB", path, maxSimFile>>20)
	}
	return data, nil
}

// simCounts are a run's instructions and estimated cycles, and its system
// calls by kind when they were traced.
type simCounts struct {
	ir, cycles float64
	hasCycles  bool
	calls      map[string]float64
}

// readSimCounts reads the cachegrind files matching pattern (one per
// process) and sums them, leaving out the Go runtime's background work
// when background is false. It removes the files it read.
func readSimCounts(ctx context.Context, pattern, name string, background bool) (simCounts, error) {
	files, err := filepath.Glob(pattern)
	if err != nil {
		return simCounts{}, err
	}
	if len(files) == 0 {
		return simCounts{}, fmt.Errorf("%s: cachegrind wrote no output file", name)
	}
	var exclude func(string) bool
	if !background {
		exclude = runtimeBackground().MatchString
	}
	var c simCounts
	c.hasCycles = true
	for _, f := range files {
		data, err := readSimFile(f)
		_ = os.Remove(f)
		if err != nil {
			return simCounts{}, fmt.Errorf("%s: %w", name, err)
		}
		t, err := parse.ReadCachegrind(ctx, bytes.NewReader(data), name+" "+filepath.Base(f), exclude)
		if err != nil {
			return simCounts{}, err
		}
		ev := t.Events
		if exclude != nil {
			ev = map[string]float64{}
			for k, v := range t.Events {
				ev[k] = v - t.Excluded[k]
			}
		}
		c.ir += ev["Ir"]
		cyc, ok := parse.EstCycles(ev)
		c.cycles += cyc
		c.hasCycles = c.hasCycles && ok
	}
	return c, nil
}

// simResults turns counts into results shaped after proto (benchmark,
// group, parameters), in units of unit ("instructions/op" or
// "instructions").
func simResults(proto *bench.Result, c simCounts, perOp bool, source string) []*bench.Result {
	ir, cyc := "instructions", "est-cycles"
	if perOp {
		ir, cyc = ir+"/op", cyc+"/op"
	}
	mk := func(unit string, v float64) *bench.Result {
		return &bench.Result{Benchmark: proto.Benchmark, Group: proto.Group, Params: proto.Params, Unit: unit, Metric: bench.Simulated,
			Better: bench.LowerIsBetter, Samples: []float64{v}, Source: source}
	}
	out := []*bench.Result{mk(ir, c.ir)}
	if c.hasCycles {
		out = append(out, mk(cyc, c.cycles))
	}
	return out
}

// simBench is one Go benchmark (or sub-benchmark) run on its own under
// simulation.
type simBench struct {
	// pattern selects exactly this benchmark for -test.bench.
	pattern string
	// key names it in Outcome.simN.
	key  string
	unit string
}

// simBenchLine matches a Go benchmark result line's name, iterations and
// ns/op.
var simBenchLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^(Benchmark\S+)\s+\d+\s+([0-9.eE+]+) ns/op`) })

// exactPattern selects one benchmark by its printed name: each level
// between slashes matched whole.
func exactPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// prepareSim lists, for each package, the benchmarks the suite's pattern
// selects by running them briefly without simulation, and picks each
// one's iteration count unless another side already did.
func (g *goSide) prepareSim(ctx context.Context) error {
	if msg := valgrindMissing(); msg != "" {
		g.out.Failures = append(g.out.Failures, provenance.Failure{Variant: g.side.name, Stage: "run", Message: fmt.Sprintf("suite %s: %s", g.suite.Name, msg)})
		g.pkgs = nil
		return nil
	}
	if g.out.simN == nil {
		g.out.simN = map[string]int{}
	}
	g.sim, g.simDone = map[string][]simBench{}, map[string]int{}
	for _, pkg := range g.pkgs {
		args := g.args(nil)
		work := g.opts.SimWork
		if work <= 0 {
			work = simWork
		}
		args = append(args, "-test.benchtime", work.String())
		res, err := g.opts.Sandbox.Run(ctx, sandbox.Spec{
			Argv: append([]string{pkg.binary}, args...),
			Dir:  pkg.dir, Env: simEnv(g.env), Timeout: durationOr(g.suite.Timeout, config.DefaultTimeout), MaxOutput: g.opts.MaxOutput, Network: sandbox.NoNetwork,
			ReadOnly: []string{g.side.worktree}, Session: g.vr.session,
		})
		if err != nil {
			return fmt.Errorf("suite %s: list benchmarks of %s on %s: %w", g.suite.Name, pkg.importPath, g.side.name, err)
		}
		if !res.OK() {
			g.out.Failures = append(g.out.Failures, provenance.Failure{Variant: g.side.name, Stage: "run", Message: fmt.Sprintf("suite %s: benchmarks of %s exited with status %d", g.suite.Name, pkg.importPath, res.ExitCode), LogTail: tailOf(res, 30), Limit: res.Limit})
			continue
		}
		for _, m := range simBenchLine().FindAllSubmatch(res.Stdout, -1) {
			name := string(m[1])
			key := g.suite.Name + "\x00" + pkg.importPath + "\x00" + name
			sb := simBench{pattern: exactPattern(name), key: key, unit: goUnit(pkg.importPath, name)}
			if _, ok := g.out.simN[key]; !ok {
				// At least 2: with -test.benchtime 1x the testing package
				// keeps its first run of one iteration, while any larger
				// count runs 1 then N iterations, so 1x and 2x differ by
				// two iterations, not one.
				n := minSimN
				if ns, err := strconv.ParseFloat(string(m[2]), 64); err == nil && ns > 0 {
					n = int(min(max(float64(work)/ns, minSimN), maxSimN))
				}
				// A loaded host times the benchmark slower than it is and
				// so picks too small an N: count the instructions of a
				// first pair of runs and raise N to simInstructions.
				d, proto, err := g.simPair(ctx, pkg, sb, n, fmt.Sprintf("%s/%s calibration (%s %s under cachegrind)", g.suite.Name, g.side.name, pkg.importPath, sb.pattern))
				if err != nil {
					return err
				}
				if proto == nil {
					continue
				}
				if float64(n)*d.ir < simInstructions {
					n = int(min(max(math.Ceil(simInstructions/d.ir), float64(n)), maxSimN))
				}
				g.out.simN[key] = n
			}
			g.sim[pkg.importPath] = append(g.sim[pkg.importPath], sb)
		}
	}
	return nil
}

// simRound runs each selected benchmark at N and 2N iterations under
// cachegrind and returns its instructions and estimated cycles per
// operation.
func (g *goSide) simRound(ctx context.Context, r int, only map[string]bool) ([]*bench.Result, []string, error) {
	var results []*bench.Result
	var units []string
	for _, pkg := range g.pkgs {
		for _, sb := range g.sim[pkg.importPath] {
			if only != nil && !only[sb.unit] {
				continue
			}
			if wall, _ := g.suite.Instruments(); wall && g.simDone[sb.key] >= max(g.suite.Count, simMaxRounds) {
				continue
			}
			g.simDone[sb.key]++
			name := fmt.Sprintf("%s/%s round %d (%s %s under cachegrind)", g.suite.Name, g.side.name, r+1, pkg.importPath, sb.pattern)
			d, proto, err := g.simPair(ctx, pkg, sb, g.out.simN[sb.key], name)
			if err != nil || proto == nil {
				return nil, nil, err
			}
			for _, res := range simResults(proto, d, true, name) {
				results = append(results, res)
				units = append(units, sb.unit)
			}
			if d.calls != nil {
				for _, res := range syscallResults(proto, d.calls, name) {
					results = append(results, res)
					units = append(units, sb.unit)
				}
			}
		}
	}
	return results, units, nil
}

// simPair runs one benchmark at n and 2n iterations under cachegrind and
// returns its counts per operation and the benchmark as the testing
// package named it; proto is nil when the runs failed (recorded in the
// outcome).
func (g *goSide) simPair(ctx context.Context, pkg goPackage, sb simBench, n int, name string) (simCounts, *bench.Result, error) {
	var counts [2]simCounts
	var proto *bench.Result
	for i, iters := range []int{n, 2 * n} {
		out := filepath.Join(g.scratch, fmt.Sprintf("cachegrind.%d.out", i))
		trace := filepath.Join(g.scratch, fmt.Sprintf("valgrind.%d.log", i))
		_ = os.Remove(out)
		_ = os.Remove(trace)
		argv := []string{pkg.binary, "-test.run", "^$", "-test.bench", sb.pattern, "-test.benchtime", fmt.Sprintf("%dx", iters), "-test.count", "1"}
		argv = append(argv, g.extra...)
		res, err := g.opts.Sandbox.Run(ctx, sandbox.Spec{
			Argv: simWrap(out, trace, false, argv),
			Dir:  pkg.dir, Env: simEnv(g.env), Timeout: durationOr(g.suite.Timeout, config.DefaultTimeout), MaxOutput: g.opts.MaxOutput, Network: sandbox.NoNetwork,
			ReadOnly: []string{g.side.worktree}, Writable: []string{g.scratch}, Session: g.vr.session,
		})
		g.out.commandRan(res)
		if err != nil {
			return simCounts{}, nil, fmt.Errorf("suite %s: simulate %s on %s: %w", g.suite.Name, sb.pattern, g.side.name, err)
		}
		if !res.OK() {
			if !g.failed["sim "+sb.key] {
				g.failed["sim "+sb.key] = true
				g.out.Failures = append(g.out.Failures, provenance.Failure{Variant: g.side.name, Stage: "run", Message: fmt.Sprintf("suite %s: %s of %s under cachegrind exited with status %d", g.suite.Name, sb.pattern, pkg.importPath, res.ExitCode), LogTail: joinTails(tailOf(res, 30), valgrindLogTail(trace, 10)), Limit: res.Limit})
			}
			return simCounts{}, nil, nil
		}
		if proto == nil {
			_ = parse.GoBench{}.Parse(ctx, bytes.NewReader(res.Stdout), name, func(b *bench.Result) error {
				if proto == nil {
					proto = b
				}
				return nil
			})
		}
		c, err := readSimCounts(ctx, out, name, false)
		if err != nil {
			g.out.Failures = append(g.out.Failures, provenance.Failure{Variant: g.side.name, Stage: "parse", Message: err.Error()})
			return simCounts{}, nil, nil
		}
		c.calls, err = readSyscallLog(ctx, trace, name)
		if err != nil {
			g.out.Warnings = appendOnce(g.out.Warnings, fmt.Sprintf("suite %s: %s of %s: no system call count: %v", g.suite.Name, sb.pattern, pkg.importPath, err))
		}
		counts[i] = c
	}
	if proto == nil {
		return simCounts{}, nil, nil
	}
	if proto.Group == "" {
		proto.Group = pkg.importPath
	}
	d := simCounts{ir: (counts[1].ir - counts[0].ir) / float64(n), cycles: (counts[1].cycles - counts[0].cycles) / float64(n), hasCycles: counts[0].hasCycles && counts[1].hasCycles}
	if counts[0].calls != nil && counts[1].calls != nil {
		d.calls = syscallsPerOp(counts[0].calls, counts[1].calls, n)
	}
	if d.ir <= 0 {
		g.out.Warnings = appendOnce(g.out.Warnings, fmt.Sprintf("suite %s: %s of %s: %d more iterations counted no more instructions; no simulated count", g.suite.Name, sb.pattern, pkg.importPath, n))
		return simCounts{}, nil, nil
	}
	return d, proto, nil
}

// simCommand runs a command suite's command once under cachegrind,
// following the processes it starts, and returns the whole run's
// instructions and estimated cycles, shaped after proto.
func (cs *commandSide) simCommand(ctx context.Context, cmd string, proto *bench.Result, name string) ([]*bench.Result, error) {
	if msg := valgrindMissing(); msg != "" {
		return nil, errors.New(msg)
	}
	pattern := filepath.Join(cs.vr.scratch, "cachegrind.*.out")
	old, _ := filepath.Glob(pattern)
	for _, f := range old {
		_ = os.Remove(f)
	}
	res, err := cs.opts.Sandbox.Run(ctx, sandbox.Spec{
		Argv: simWrap(filepath.Join(cs.vr.scratch, "cachegrind.%p.out"), "", true, []string{"/bin/sh", "-c", cmd}),
		Dir:  cs.dir, Env: simEnv(cs.env),
		Timeout: durationOr(cs.suite.Timeout, config.DefaultTimeout), MaxOutput: cs.opts.MaxOutput, Network: roundNetwork(cs.suite),
		Writable: cs.vr.roundWritable(), Session: cs.vr.session,
	})
	cs.out.commandRan(res)
	if err != nil {
		return nil, fmt.Errorf("suite %s: %s under cachegrind: %w", cs.suite.Name, cs.side.name, err)
	}
	if !res.OK() {
		return nil, fmt.Errorf("suite %s: %s under cachegrind exited with status %d: %s", cs.suite.Name, cmd, res.ExitCode, tailOf(res, 5))
	}
	c, err := readSimCounts(ctx, pattern, name, true)
	if err != nil {
		return nil, err
	}
	return simResults(proto, c, false, name), nil
}

func appendOnce(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// A cpu-sim suite that sets none of count, max_count and budget samples
// config.DefaultSimCount and config.DefaultSimMaxCount rounds: simulated
// counts repeat within a fraction of a percent, so 2 rounds a side, the
// fewest that show the repeats agree, decide almost every benchmark, and
// adaptive sampling adds rounds only to the few whose repeats disagree
// (countsAgree) and stay undecided, up to 6.

// simMaxRounds caps, under "both", the simulated rounds of each side
// beyond the suite's count: wall time may need many rounds (adaptive
// sampling), simulated counts do not.
const simMaxRounds = config.DefaultSimMaxCount

// round runs one round of the command suite: its command natively for
// wall time, under cachegrind for simulated counts, or both.
func (cs *commandSide) round(ctx context.Context, r int, only map[string]bool) ([]*bench.Result, []string, error) {
	wall, sim := cs.suite.Instruments()
	var results []*bench.Result
	var units []string
	if wall {
		rs, us, err := cs.wallRound(ctx, r, only)
		if err != nil {
			return nil, nil, err
		}
		results, units = rs, us
	}
	if !sim || (wall && cs.simRounds >= max(cs.suite.Count, simMaxRounds)) {
		return results, units, nil
	}
	cs.simRounds++
	builtin := cs.vr.builtin(cs.side, r+1)
	for i, pt := range cs.suite.Matrix.Points() {
		unit := fmt.Sprintf("point %d", i+1)
		if only != nil && !only[unit] {
			continue
		}
		cmd := cs.vr.command(cs.suite.Command, pt, builtin)
		name := fmt.Sprintf("%s/%s round %d (%s under cachegrind)", cs.suite.Name, cs.side.name, r+1, cmd)
		proto := &bench.Result{Benchmark: cs.suite.Name, Params: withMatrix(pt, nil)}
		rs, err := cs.simCommand(ctx, cmd, proto, name)
		if err != nil {
			if ctx.Err() != nil {
				return nil, nil, err
			}
			if !cs.failed["sim "+cmd] {
				cs.failed["sim "+cmd] = true
				cs.out.Failures = append(cs.out.Failures, provenance.Failure{Variant: cs.side.name, Stage: "run", Message: err.Error()})
			}
			continue
		}
		for _, res := range rs {
			results = append(results, res)
			units = append(units, unit)
		}
	}
	return results, units, nil
}
