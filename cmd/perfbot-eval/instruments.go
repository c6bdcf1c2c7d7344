package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/compare"
	pbconfig "github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/internal/gitrepo"
	"github.com/perfbot/perfbot/provenance"
	"github.com/perfbot/perfbot/runner"
	"github.com/perfbot/perfbot/sandbox"
)

// The instruments scenario measures a real Go benchmark on this host with
// both instruments in the same runs: a loop of instrLoop units of work on
// the baseline, and candidates whose patches change the loop by 0%
// (a comment), +0.5%, +1%, +2% and +5%. runner.Run measures every side in
// interleaved rounds with instrument "both", as a job would; the
// comparisons are then drawn from those rounds: for each instrument and
// change, draws comparisons of k baseline rounds against k candidate
// rounds picked at random (k = simRounds under cpu-sim, as a cpu-sim suite
// runs by default; wallRounds under wall time), each through
// compare.Compare. A third row, auto, draws from the instrument that
// instrument auto picks from the noise probe the run made as it started
// (runner.AutoInstrument). With busy set, that many goroutines spin for
// the whole measurement, to load the host the same way each time.
const instrLoop = 20000

var instrChanges = []float64{0, 0.5, 1, 2, 5}

// instrumentEval is the scenario's settings.
type instrumentEval struct {
	rounds     int
	draws      int
	simRounds  int
	wallRounds int
	seed       uint64
	// busy is the number of busy loops that run while measuring.
	busy int
	// save and load name a JSON file of the measured results.
	save, load string
}

// instrumentRun is what the scenario measured, as -save writes it.
type instrumentRun struct {
	// Noise is the host's noise probe at the start of the run.
	Noise   *provenance.HostNoise `json:"host_noise,omitempty"`
	Busy    int                   `json:"busy_loops"`
	Results []*bench.Result       `json:"results"`
}

func (e instrumentEval) run(ctx context.Context, stdout, stderr io.Writer) error {
	var measured instrumentRun
	var elapsed time.Duration
	if e.load != "" {
		data, err := os.ReadFile(e.load)
		if err != nil {
			return err
		}
		// Older files hold the results alone.
		if err := json.Unmarshal(data, &measured.Results); err != nil {
			if err := json.Unmarshal(data, &measured); err != nil {
				return fmt.Errorf("%s: %w", e.load, err)
			}
		}
	} else {
		start := time.Now()
		m, err := e.measure(ctx, stderr)
		if err != nil {
			return err
		}
		measured, elapsed = m, time.Since(start)
		if e.save != "" {
			data, err := json.Marshal(measured)
			if err != nil {
				return err
			}
			if err := os.WriteFile(e.save, data, 0o644); err != nil {
				return err
			}
		}
	}
	pools := map[string]map[string][]float64{} // unit -> variant -> rounds
	for _, r := range measured.Results {
		if r.Unit != "ns/op" && r.Unit != "instructions/op" {
			continue
		}
		if pools[r.Unit] == nil {
			pools[r.Unit] = map[string][]float64{}
		}
		pools[r.Unit][r.Variant] = append(pools[r.Unit][r.Variant], r.Samples...)
	}
	if e.rounds == 0 {
		// -load alone: the rounds are the file's, and wall time is
		// compared over half of them as when they were measured.
		e.rounds = len(pools["ns/op"]["base"])
		e.wallRounds = max(e.rounds/2, 3)
	}
	fmt.Fprintf(stdout, "## Instruments on this host (%d rounds a side", e.rounds)
	if elapsed > 0 {
		fmt.Fprintf(stdout, ", measured in %s", elapsed.Round(time.Second))
	}
	if measured.Busy > 0 {
		fmt.Fprintf(stdout, ", with %d busy loops", measured.Busy)
	}
	fmt.Fprintf(stdout, "; %d draws per cell)\n\n", e.draws)
	auto, why := runner.AutoInstrument(measured.Noise, 0)
	if measured.Noise == nil {
		auto, why = "", "the results hold no noise probe"
	}
	fmt.Fprintln(stdout, "| instrument | rounds per draw | spread of repeats | flagged/100 unchanged | detect 0.5% | 1% | 2% | 5% | flagged/100 unchanged before confirmation |")
	fmt.Fprintln(stdout, "|---|---|---|---|---|---|---|---|---|")
	wall := instrumentRow{"walltime", "walltime", "ns/op", "", e.wallRounds}
	sim := instrumentRow{"cpu-sim", "cpu-sim", "instructions/op", bench.Simulated, e.simRounds}
	rows := []instrumentRow{wall, sim}
	switch auto {
	case pbconfig.InstrumentWallTime:
		wall.name = "auto (walltime: " + why + ")"
		rows = append(rows, wall)
	case pbconfig.InstrumentCPUSim:
		sim.name = "auto (cpu-sim: " + why + ")"
		rows = append(rows, sim)
	default:
		fmt.Fprintf(stdout, "No auto row: %s.\n\n", why)
	}
	for _, inst := range rows {
		pool := pools[inst.unit]
		if len(pool["base"]) < inst.k {
			return fmt.Errorf("%s: %d baseline rounds measured, want at least %d", inst.name, len(pool["base"]), inst.k)
		}
		// auto draws as the instrument it picked does.
		rng := rand.New(rand.NewPCG(e.seed, uint64(len(inst.instrument))))
		row := fmt.Sprintf("| %s | %d | %.2f%% |", inst.name, inst.k, spreadOf(pool["base"]))
		first := ""
		for _, ch := range instrChanges {
			variant := changeName(ch)
			hit, flagged := 0, 0
			for range e.draws {
				// A draw's rounds, and other rounds of the same sides for
				// the confirmation: a job reruns a regression once in
				// fresh rounds and calls it worse only when seen twice.
				base, baseRest := pickSplit(rng, pool["base"], inst.k)
				cand, candRest := pickSplit(rng, pool[variant], inst.k)
				v, err := drawVerdict(inst, base, cand)
				if err != nil {
					return err
				}
				if v == compare.Better || v == compare.Worse {
					flagged++
				}
				if v == compare.Worse {
					if v, err = drawVerdict(inst, baseRest, candRest); err != nil {
						return err
					}
				}
				if (ch == 0 && (v == compare.Better || v == compare.Worse)) || (ch > 0 && v == compare.Worse) {
					hit++
				}
			}
			if ch == 0 {
				row += fmt.Sprintf(" %.1f |", 100*float64(hit)/float64(e.draws))
				first = fmt.Sprintf(" %.1f |", 100*float64(flagged)/float64(e.draws))
			} else {
				row += fmt.Sprintf(" %.0f%% |", 100*float64(hit)/float64(e.draws))
			}
		}
		row += first
		fmt.Fprintln(stdout, row)
	}
	return nil
}

// instrumentRow is one row of the table: the instrument whose results it
// draws from, their unit and metric and the rounds a side each draw
// compares.
type instrumentRow struct {
	name, instrument, unit, metric string
	k                              int
}

// measure runs the work module's benchmark on every side with instrument
// "both", with e.busy busy loops spinning meanwhile.
func (e instrumentEval) measure(ctx context.Context, stderr io.Writer) (instrumentRun, error) {
	dir, err := os.MkdirTemp("", "perfbot-eval-instruments-")
	if err != nil {
		return instrumentRun{}, err
	}
	busyCtx, stopBusy := context.WithCancel(ctx)
	defer stopBusy()
	for range e.busy {
		go spin(busyCtx)
	}
	defer os.RemoveAll(dir)
	repo := filepath.Join(dir, "repo")
	var cands []runner.Candidate
	if err := initRepo(ctx, repo, gitrepo.WorkModule(instrLoop, true)); err != nil {
		return instrumentRun{}, err
	}
	for _, ch := range instrChanges {
		src := gitrepo.WorkSource(int(float64(instrLoop) * (1 + ch/100)))
		if ch == 0 {
			src += "\n// Unchanged: only this comment differs.\n"
		}
		patch := filepath.Join(dir, changeName(ch)+".patch")
		if err := writePatch(ctx, repo, patch, map[string]string{"work/work.go": src}); err != nil {
			return instrumentRun{}, err
		}
		cands = append(cands, runner.Candidate{Name: changeName(ch), Patch: patch})
	}
	out, err := runner.Run(ctx, runner.Options{
		Repo: repo, Base: "HEAD", Candidates: cands, CacheDir: filepath.Join(dir, "cache"),
		Suites: []pbconfig.Suite{{Name: "work", Preset: "go", Instrument: pbconfig.InstrumentBoth, Count: e.rounds, MaxCount: e.rounds,
			Go: pbconfig.GoOptions{Bench: "^BenchmarkWork$", Benchtime: "50ms"}}},
		Sandbox: sandbox.Local{}, SandboxName: "none", Env: os.Environ(), Progress: stderr, Seed: e.seed,
		// 5ms of native work per simulated run instead of 20ms, to keep
		// the scenario short: several million instructions per run.
		SimWork: 5 * time.Millisecond,
	})
	if err != nil {
		return instrumentRun{}, err
	}
	if len(out.Failures) > 0 {
		return instrumentRun{}, fmt.Errorf("%s: %s", out.Failures[0].Stage, out.Failures[0].Message)
	}
	if n := out.Provenance.Host.Noise; n != nil {
		fmt.Fprintf(stderr, "eval: host noise: calibration loop spread %.1f%%, steal %.1f%%, load %.2f\n", n.LoopSpreadPct, n.StealPct, n.Load1)
	}
	// The slowdown is timed on a binary of the baseline.
	bin := filepath.Join(dir, "work.test")
	build := exec.CommandContext(ctx, "go", "test", "-c", "-o", bin, "./work")
	build.Dir = repo
	if o, err := build.CombinedOutput(); err != nil {
		return instrumentRun{}, fmt.Errorf("go test -c: %v: %s", err, o)
	}
	if native, simulated, err := slowdown(ctx, bin, 2000); err != nil {
		fmt.Fprintf(stderr, "eval: slowdown not measured: %v\n", err)
	} else {
		fmt.Fprintf(stderr, "eval: 2000 iterations took %s natively and %s under cachegrind: %.0fx slower\n", native.Round(time.Millisecond), simulated.Round(time.Millisecond), float64(simulated)/float64(native))
	}
	return instrumentRun{Noise: out.Provenance.Host.Noise, Busy: e.busy, Results: out.Results}, nil
}

// spin keeps one core busy until ctx ends.
func spin(ctx context.Context) {
	x := uint64(1)
	for ctx.Err() == nil {
		for range 1_000_000 {
			x = x*6364136223846793005 + 1
		}
	}
	busySink.Store(x)
}

// busySink keeps the compiler from removing spin's loop.
var busySink atomic.Uint64

func changeName(pct float64) string {
	if pct == 0 {
		return "same"
	}
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("plus%.1f", pct), "0"), ".") + "pct"
}

// pick returns k values of pool drawn without replacement.
// pickSplit draws k values of pool at random and, from the others, up to
// k more for a confirmation; both keep pool's order, the order the rounds
// ran in, which the run-noise bound reads.
func pickSplit(rng *rand.Rand, pool []float64, k int) (drawn, rest []float64) {
	perm := rng.Perm(len(pool))
	a := perm[:min(k, len(perm))]
	b := perm[len(a):min(2*k, len(perm))]
	slices.Sort(a)
	slices.Sort(b)
	for _, i := range a {
		drawn = append(drawn, pool[i])
	}
	for _, i := range b {
		rest = append(rest, pool[i])
	}
	return drawn, rest
}

// drawVerdict compares one draw's baseline and candidate rounds as a job
// compares its rounds.
func drawVerdict(inst instrumentRow, base, cand []float64) (compare.Verdict, error) {
	if len(base) == 0 || len(cand) == 0 {
		return "", fmt.Errorf("%s: no rounds left to confirm with: measure more rounds", inst.name)
	}
	var rs []*bench.Result
	for _, v := range base {
		rs = append(rs, &bench.Result{Benchmark: "Work", Unit: inst.unit, Metric: inst.metric, Variant: "base", Samples: []float64{v}})
	}
	for _, v := range cand {
		rs = append(rs, &bench.Result{Benchmark: "Work", Unit: inst.unit, Metric: inst.metric, Variant: "candidate", Samples: []float64{v}})
	}
	cmp, err := compare.Compare(rs, compare.Options{Base: "base", Verdicts: compare.VerdictOptions{BootstrapIterations: -1}})
	if err != nil {
		return "", err
	}
	return cmp.Rows[0].Candidates[0].Verdict, nil
}

// spreadOf is the range of x over its median, in percent.
func spreadOf(x []float64) float64 {
	lo, hi := x[0], x[0]
	for _, v := range x {
		lo, hi = min(lo, v), max(hi, v)
	}
	s := append([]float64(nil), x...)
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return 100 * (hi - lo) / s[len(s)/2]
}

// slowdown times one native run and one run under cachegrind of the same
// benchmark binary and iteration count.
func slowdown(ctx context.Context, binary string, iters int) (native, simulated time.Duration, err error) {
	args := []string{"-test.run", "^$", "-test.bench", "^BenchmarkWork$", "-test.benchtime", fmt.Sprintf("%dx", iters)}
	t0 := time.Now()
	if err := exec.CommandContext(ctx, binary, args...).Run(); err != nil {
		return 0, 0, err
	}
	native = time.Since(t0)
	t0 = time.Now()
	cmd := exec.CommandContext(ctx, "setarch", append([]string{"-R", "valgrind", "--tool=cachegrind", "--cache-sim=yes", "--cachegrind-out-file=/dev/null", binary}, args...)...)
	// As the runner runs it: Valgrind 3.19 cannot execute RDTSCP.
	cmd.Env = append(os.Environ(), "GOMAXPROCS=1", "GOGC=off", "GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off")
	if err := cmd.Run(); err != nil {
		return 0, 0, err
	}
	return native, time.Since(t0), nil
}

// initRepo makes a git repository at dir holding files in one commit.
func initRepo(ctx context.Context, dir string, files map[string]string) error {
	if err := writeFiles(dir, files); err != nil {
		return err
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=eval", "-c", "user.email=eval@localhost", "commit", "-qm", "work"}} {
		if out, err := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			return fmt.Errorf("git %s: %v: %s", args[0], err, out)
		}
	}
	return nil
}

// writePatch writes to path the diff that changing files in repo makes,
// and leaves repo as it was.
func writePatch(ctx context.Context, repo, path string, files map[string]string) error {
	if err := writeFiles(repo, files); err != nil {
		return err
	}
	diff, err := exec.CommandContext(ctx, "git", "-C", repo, "diff").Output()
	if err != nil {
		return fmt.Errorf("git diff: %w", err)
	}
	if out, err := exec.CommandContext(ctx, "git", "-C", repo, "checkout", "--", ".").CombinedOutput(); err != nil {
		return fmt.Errorf("git checkout: %v: %s", err, out)
	}
	return os.WriteFile(path, diff, 0o644)
}

func writeFiles(dir string, files map[string]string) error {
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}
