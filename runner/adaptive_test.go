package runner

import (
	"context"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/internal/gitrepo"
	"github.com/perfbot/perfbot/sandbox"
	"github.com/perfbot/perfbot/stats"
)

// roundSuite prints one Go benchmark line whose value depends only on the
// variant's LEVEL and the round number: LEVEL + (round*37 mod 7)*3, so the
// values of a side spread over 18 units, identically from run to run. The
// first round prints 999999, which only a warm-up may see.
func roundSuite(baseLevel, candLevel string) config.Suite {
	return config.Suite{
		Name:    "rounds",
		Command: `v=$((LEVEL + ({round} * 37 % 7) * 3)); [ {round} = 1 ] && v=999999; echo "BenchmarkRound 1 $v ns/op"`,
		Parser:  "gobench",
		Count:   3,
		Variants: config.Variants{
			{Name: "base", Env: map[string]string{"LEVEL": baseLevel}},
			{Name: "cand", Env: map[string]string{"LEVEL": candLevel}},
		},
	}
}

func runRounds(t *testing.T, suite config.Suite) *Outcome {
	t.Helper()
	r := gitrepo.New(t)
	r.Commit("empty", map[string]string{"README": "nothing to build\n"})
	return runIn(t, r, suite, 99)
}

// runIn runs one suite on repository r's HEAD and its candidates, and
// fails the test on an error or a failed step.
func runIn(t *testing.T, r *gitrepo.Repo, suite config.Suite, seed uint64, cands ...Candidate) *Outcome {
	t.Helper()
	out, err := Run(context.Background(), Options{
		Repo: r.Dir, Base: "HEAD", Candidates: cands, Suites: []config.Suite{suite}, Seed: seed,
		CacheDir: t.TempDir(), Sandbox: sandbox.Local{}, SandboxName: "none", Env: os.Environ(),
		Decide: decideBy(compare.Options{}),
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Failures) > 0 {
		t.Fatalf("failures: %+v", out.Failures)
	}
	return out
}

// decideBy decides as the job does (job.decide), with verdicts reached as
// opts say and the default target.
func decideBy(opts compare.Options) Decide {
	return func(results []*bench.Result, variants []string) ([]Undecided, error) {
		opts.Base, opts.Candidates = variants[0], variants[1:]
		pending, err := compare.Undecided(results, opts, 0)
		var undecided []Undecided
		for _, p := range pending {
			undecided = append(undecided, Undecided{Key: p.Key, Name: p.Name, P: p.P})
		}
		return undecided, err
	}
}

// goModule commits a Go module, example.com/m, made of files.
func goModule(t *testing.T, files map[string]string) *gitrepo.Repo {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH")
	}
	r := gitrepo.New(t)
	files["go.mod"] = "module example.com/m\n\ngo 1.22\n"
	r.Commit("benchmarks", files)
	return r
}

// samples counts each variant's samples and fails on a warm-up value.
func samples(t *testing.T, out *Outcome) map[string]int {
	n := map[string]int{}
	for _, r := range out.Results {
		for _, x := range r.Samples {
			if x == 999999 {
				t.Errorf("%s: a warm-up round's result was kept", r.Variant)
			}
		}
		n[r.Variant] += len(r.Samples)
	}
	return n
}

func TestWarmupDiscarded(t *testing.T) {
	out := runRounds(t, roundSuite("100", "100"))
	if n := samples(t, out); n["base"] != 3 || n["cand"] != 3 {
		t.Errorf("samples %v, want 3 a side", n)
	}
	order := strings.Join(out.Provenance.RunOrder, " ")
	if strings.Count(order, "(warm-up)") != 2 || !strings.HasSuffix(out.Provenance.RunOrder[1], "(warm-up)") {
		t.Errorf("run order %q: want one warm-up round of each variant first", order)
	}
	s := out.Provenance.Suites[0]
	if s.Rounds != 3 || s.Warmup != 1 || s.Stopped != "" {
		t.Errorf("suite provenance %+v, want 3 rounds after 1 warm-up, not adaptive", s)
	}
	if out.Provenance.Seed != 99 {
		t.Errorf("seed %d, want 99", out.Provenance.Seed)
	}

	none := 0
	suite := roundSuite("100", "100")
	suite.Warmup = &none
	out = runRounds(t, suite)
	if strings.Contains(strings.Join(out.Provenance.RunOrder, " "), "warm-up") {
		t.Errorf("warmup: 0 still ran a warm-up: %v", out.Provenance.RunOrder)
	}
}

func TestAdaptiveSampling(t *testing.T) {
	for _, c := range []struct {
		name              string
		cand              string
		maxCount          int
		budget            time.Duration
		wantStop          string
		minRounds, rounds int // rounds in [minRounds, rounds]
		wantVerdict       compare.Verdict
	}{
		// 10% faster, hidden in an 18% spread: 3 rounds cannot tell, more do.
		{"decides", "90", 30, 0, StopDecided, 4, 29, compare.Better},
		// No change and a wide spread: never decided; max_count ends it.
		{"max_count", "100", 8, 0, StopMaxCount, 8, 8, ""},
		// A budget smaller than one round: the minimum only.
		{"budget", "100", 0, time.Nanosecond, StopBudget, 3, 3, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			suite := roundSuite("100", c.cand)
			suite.MaxCount, suite.Budget = c.maxCount, config.Budget{Time: c.budget}
			out := runRounds(t, suite)
			s := out.Provenance.Suites[0]
			if s.Stopped != c.wantStop || s.Rounds < c.minRounds || s.Rounds > c.rounds {
				t.Errorf("stopped %q after %d rounds, want %q after %d..%d", s.Stopped, s.Rounds, c.wantStop, c.minRounds, c.rounds)
			}
			if n := samples(t, out); n["base"] != s.Rounds || n["cand"] != s.Rounds {
				t.Errorf("samples %v, want %d a side", n, s.Rounds)
			}
			if s.Rounds%2 == 0 {
				// Whole blocks: each variant ran first as often.
				first := map[string]int{}
				order := out.Provenance.RunOrder[2:] // after the warm-ups
				for i := 0; i < len(order); i += 2 {
					first[order[i]]++
				}
				if first["base"] != first["cand"] {
					t.Errorf("rounds led by base %d, by cand %d: want as many", first["base"], first["cand"])
				}
			}
			if c.wantVerdict != "" {
				cmp, err := compare.Compare(out.Results, compare.Options{Base: "base", Candidates: []string{"cand"}})
				if err != nil {
					t.Fatal(err)
				}
				if v := cmp.Rows[0].Candidates[0].Verdict; v != c.wantVerdict {
					t.Errorf("verdict %s, want %s", v, c.wantVerdict)
				}
			}
		})
	}
}

// TestAdaptiveRunsOnlyUndecided: after the first rounds, only the
// benchmarks still undecided run again. Quiet reports a constant ns/op
// (decided at once: same, interval [0, 0]), Noisy a value that jumps from
// run to run, so it is never decided and runs to max_count; both have
// sub-benchmarks, which the narrowed -test.bench pattern must keep.
func TestAdaptiveRunsOnlyUndecided(t *testing.T) {
	r := goModule(t, map[string]string{
		"two/two_test.go": `package two

import (
	"testing"
	"time"
)

func BenchmarkQuiet(b *testing.B) {
	for _, s := range []string{"a", "b"} {
		b.Run("sub="+s, func(b *testing.B) {
			for range b.N {
			}
			b.ReportMetric(100, "ns/op")
		})
	}
}

func BenchmarkNoisy(b *testing.B) {
	for _, s := range []string{"a", "b"} {
		b.Run("sub="+s, func(b *testing.B) {
			for range b.N {
			}
			b.ReportMetric(float64(100+time.Now().UnixNano()/1000%61), "ns/op")
		})
	}
}
`})
	patch := r.Patch("docs: a readme", map[string]string{"README": "two benchmarks\n"}, true)
	// Without B/op and allocs/op: a single iteration's allocations vary
	// from run to run, which would keep Quiet undecided.
	noMem := false
	suite := config.Suite{Name: "go", Preset: "go", Count: 3, MaxCount: 8, Go: config.GoOptions{Benchtime: "1x", Bench: "./sub=.", Benchmem: &noMem}}
	out := runIn(t, r, suite, 5, Candidate{Name: "patch", Patch: patch})
	n := map[string]int{}
	for _, res := range out.Results {
		if res.Unit == "ns/op" {
			n[res.Variant+" "+res.Benchmark+" "+res.Params.String()] += len(res.Samples)
		}
	}
	for _, side := range []string{"base", "patch"} {
		for _, sub := range []string{"sub=a", "sub=b"} {
			if got := n[side+" Quiet-"+cores()+" "+sub]; got != 3 {
				t.Errorf("%s Quiet %s: %d samples, want 3 (decided after the first rounds): %v", side, sub, got, n)
			}
			if got := n[side+" Noisy-"+cores()+" "+sub]; got != 8 {
				t.Errorf("%s Noisy %s: %d samples, want 8 (max_count): %v", side, sub, got, n)
			}
		}
	}
	s := out.Provenance.Suites[0]
	// Runs per side: 2 units for 3 rounds, then Noisy alone for 5.
	if s.Stopped != StopMaxCount || s.Rounds != 8 || s.Runs != 2*3+5 {
		t.Errorf("provenance %+v: want stopped at max_count after 8 rounds and 11 runs", s)
	}
}

// cores is the -GOMAXPROCS suffix Go puts on benchmark names here.
func cores() string { return strconv.Itoa(runtime.GOMAXPROCS(0)) }

// TestAdaptiveRoundsBudget: a budget of 4x lets each side make the runs of
// 4 rounds of every matrix point; the constant point is decided after the
// first 3 rounds, so the spread one gets the rest.
func TestAdaptiveRoundsBudget(t *testing.T) {
	suite := config.Suite{
		Name:    "points",
		Command: `v=$((LEVEL + ({round} * 37 % 7) * {spread})); echo "BenchmarkPoint 1 $v ns/op"`,
		Parser:  "gobench",
		Count:   3,
		Matrix:  config.Matrix{{Name: "spread", Values: []string{"0", "3"}}},
		Budget:  config.Budget{Rounds: 4},
		Variants: config.Variants{
			{Name: "base", Env: map[string]string{"LEVEL": "100"}},
			{Name: "cand", Env: map[string]string{"LEVEL": "100"}},
		},
	}
	out := runRounds(t, suite)
	n := map[string]int{}
	for _, r := range out.Results {
		v, _ := r.Params.Get("spread")
		n[r.Variant+" spread="+v] += len(r.Samples)
	}
	want := map[string]int{"base spread=0": 3, "cand spread=0": 3, "base spread=3": 5, "cand spread=3": 5}
	for k, w := range want {
		if n[k] != w {
			t.Errorf("%s: %d samples, want %d (all: %v)", k, n[k], w, n)
		}
	}
	if s := out.Provenance.Suites[0]; s.Stopped != StopBudget || s.Runs != 8 {
		t.Errorf("provenance %+v: want stopped by the budget after 8 runs a side", s)
	}
}

// TestGoVariantEnvAndArgs: a go suite's variants compare one tree under two
// settings; each variant's env reaches the benchmark and its args the test
// binary's flags.
func TestGoVariantEnvAndArgs(t *testing.T) {
	r := goModule(t, map[string]string{
		"env/env_test.go": `package env

import (
	"os"
	"strconv"
	"testing"
)

func BenchmarkLevel(b *testing.B) {
	level, _ := strconv.Atoi(os.Getenv("LEVEL"))
	for range b.N {
	}
	b.ReportMetric(float64(level), "level")
	b.ReportMetric(float64(b.N), "iterations")
}
`})
	noMem := false
	suite := config.Suite{Name: "go", Preset: "go", Count: 2, Go: config.GoOptions{Benchtime: "1x", Benchmem: &noMem},
		Variants: config.Variants{
			{Name: "base", Env: map[string]string{"LEVEL": "100"}},
			{Name: "tuned", Env: map[string]string{"LEVEL": "250"}, Args: "-test.benchtime 7x"},
		}}
	out := runIn(t, r, suite, 3)
	got := map[string]float64{}
	for _, res := range out.Results {
		if res.Unit == "level" || res.Unit == "iterations" {
			got[res.Variant+" "+res.Unit] = res.Samples[0]
		}
	}
	want := map[string]float64{"base level": 100, "tuned level": 250, "base iterations": 1, "tuned iterations": 7}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s = %v, want %v (all: %v)", k, got[k], w, got)
		}
	}
}

// TestAdaptiveIgnoresCounters: perf stat counters (unit "") ride along
// with their point; however noisy, they never keep it undecided.
func TestAdaptiveIgnoresCounters(t *testing.T) {
	a := newAdaptive(3, 10, config.Budget{}, 2, Options{Decide: decideBy(compare.Options{})})
	res := func(name, unit, variant string, v ...float64) *bench.Result {
		return &bench.Result{Benchmark: name, Unit: unit, Variant: variant, Samples: v}
	}
	results := []*bench.Result{
		res("Point", "ns/op", "base", 100, 100, 100), res("Point", "ns/op", "cand", 100, 100, 100),
		res("Point", "task-clock-msec", "base", 50, 90, 20), res("Point", "task-clock-msec", "cand", 80, 30, 60),
	}
	a.ran(results, []string{"point 1", "point 1", "", ""})
	a.counted([]string{"point 1"})
	units, _, why := a.plan(0, results, []string{"base", "cand"})
	if len(units) != 0 || why != StopDecided {
		t.Errorf("plan = %v, %q; want decided (the counter is not a reason to run more)", units, why)
	}
}

// TestAdaptiveStopsWhenCountsAgree: simulated counts that repeat exactly on
// each side are not sampled again, even when the benchmark's noise history
// leaves the verdict noisy; counts whose repeats disagree are.
func TestAdaptiveStopsWhenCountsAgree(t *testing.T) {
	var cmpOpts compare.Options
	cmpOpts.Verdicts.History = func(*compare.Row) (stats.Noise, bool) { return stats.Noise{ThresholdPct: 8, N: 10}, true }
	opts := Options{Decide: decideBy(cmpOpts)}
	sim := func(variant string, v ...float64) *bench.Result {
		return &bench.Result{Benchmark: "Sum", Unit: "instructions/op", Metric: bench.Simulated, Better: bench.LowerIsBetter, Variant: variant, Samples: v}
	}
	for _, tt := range []struct {
		name      string
		base, new []float64
		want      string
	}{
		{"agree", []float64{1000, 1000.2}, []float64{1060, 1060.1}, StopDecided},
		{"disagree", []float64{1000, 1020}, []float64{1060, 1090}, ""},
	} {
		a := newAdaptive(config.DefaultSimCount, config.DefaultSimMaxCount, config.Budget{}, 2, opts)
		results := []*bench.Result{sim("base", tt.base...), sim("cand", tt.new...)}
		a.ran(results, []string{"go sum", "go sum"})
		a.counted([]string{"go sum"})
		a.counted([]string{"go sum"})
		units, _, why := a.plan(0, results, []string{"base", "cand"})
		if tt.want == StopDecided && (len(units) != 0 || why != StopDecided) {
			t.Errorf("%s: plan = %v, %q; want to stop: the counts agree", tt.name, units, why)
		}
		if tt.want == "" && len(units) != 1 {
			t.Errorf("%s: plan = %v, %q; want another block of the undecided benchmark", tt.name, units, why)
		}
	}
}

func TestCPUSimSamplingStartsWithTwoRounds(t *testing.T) {
	count, maxCount, _ := sampling(&config.Suite{Preset: "go", Instrument: config.InstrumentCPUSim})
	if count != 2 || maxCount != 6 {
		t.Errorf("cpu-sim sampling = %d up to %d rounds, want 2 up to 6", count, maxCount)
	}
}

// TestSamplingDefaults: a suite's count, max_count and budget when it sets
// some or none of them, as config's Default constants (and so the
// command line's help) say.
func TestSamplingDefaults(t *testing.T) {
	for _, tc := range []struct {
		name            string
		suite           config.Suite
		count, maxCount int
		budget          config.Budget
	}{
		{"go, none set: adaptive", config.Suite{Preset: "go"}, 6, 40, config.Budget{Rounds: 10}},
		{"go, a budget", config.Suite{Preset: "go", Budget: config.Budget{Rounds: 20}}, 10, 0, config.Budget{Rounds: 20}},
		{"go, max_count below the fixed count", config.Suite{Preset: "go", MaxCount: 8}, 8, 8, config.Budget{}},
		{"go, a count", config.Suite{Preset: "go", Count: 3}, 3, 0, config.Budget{}},
		{"command", config.Suite{Command: "./bench"}, 5, 0, config.Budget{}},
		{"cpu-sim, none set", config.Suite{Preset: "go", Instrument: config.InstrumentCPUSim}, 2, 6, config.Budget{}},
	} {
		count, maxCount, budget := sampling(&tc.suite)
		if count != tc.count || maxCount != tc.maxCount || budget != tc.budget {
			t.Errorf("%s: sampling = %d, %d, %+v; want %d, %d, %+v", tc.name, count, maxCount, budget, tc.count, tc.maxCount, tc.budget)
		}
	}
}
