// Command perfbot-eval measures how often perfbot's verdicts and benchstat's method
// cry wolf and how often they catch real changes, on the same samples.
//
// Usage:
//
//	go run ./cmd/perfbot-eval [-n SUITES] [-seed S] [-real FILE]
//
// For each scenario it draws SUITES suites of 50 benchmarks with 10 samples
// per side (the budget benchstat needs for its recommended 10 runs), runs
// every suite through compare.Compare under each method, and prints:
//
//   - on no-change suites: the share of comparisons flagged better or worse
//     (flagged per 100 comparisons), the share of suites with at least one
//     flagged benchmark, and the share called noisy;
//   - on suites where 10 of the 50 benchmarks got slower by 1%, 2%, 5% or
//     10%: the share of those 10 flagged worse.
//
// Scenarios: "simulated" benchmarks whose noise imitates real ones
// (log-normal skew, occasional slow outliers, a slow drift across rounds
// shared by the interleaved sides; see sim.go), and "real" repeated runs of
// Go's sort benchmarks (testdata/sort.txt, see testdata/PROVENANCE.md), where
// no-change pairs are windows of consecutive runs split round by round and
// change pairs scale one side.
//
// Methods: benchstat (Mann-Whitney U at alpha 0.05 per comparison), perfbot
// (the same test, Benjamini-Hochberg at q = 0.05 across the suite, 10
// rounds of everything), perfbot-q0.1 and -q0.2, perfbot-paired (paired
// t-test on per-round log ratios, then BH), perfbot-history (perfbot plus
// noise thresholds learned from 8 earlier no-change comparisons of each
// benchmark) and perfbot-adaptive (perfbot sampled as the runner does by
// default: 6 rounds, then blocks of 2 for the undecided benchmarks within
// the same total budget). README.md has the table.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"

	pbconfig "github.com/perfbot/perfbot/config"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "perfbot-eval:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("perfbot-eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	n := fs.Int("n", 200, "suites per scenario and change size")
	seed := fs.Uint64("seed", 1, "random seed")
	target := fs.Float64("target", pbconfig.DefaultNoiseFloorPct, "adaptive sampling: a benchmark is decided when flagged or when its change's interval lies within ±target percent")
	start := fs.Int("start", pbconfig.DefaultGoCount, "adaptive sampling: rounds every benchmark starts with (count)")
	maxRounds := fs.Int("max", pbconfig.DefaultGoMaxCount, "adaptive sampling: most rounds one benchmark may get (max_count)")
	only := fs.String("methods", "", "comma-separated methods to run (default all)")
	real := fs.String("real", "cmd/perfbot-eval/testdata/bent-go1.17.txt,cmd/perfbot-eval/testdata/sort.txt",
		"comma-separated Go benchmark outputs with many runs per benchmark, one scenario each")
	instr := fs.Int("instruments", 0, "run only the instruments scenario: measure a real Go benchmark with changes of 0.5-5% in CPU work, this many rounds a side under both wall time and cpu-sim (6: about 1 minute on an idle 2-core host, 25 minutes loaded 15-fold); wall time is compared over half the rounds, cpu-sim over 3")
	draws := fs.Int("draws", 100, "instruments scenario: comparisons drawn per instrument and change")
	save := fs.String("save", "", "instruments scenario: write the measured results to this JSON file")
	load := fs.String("load", "", "instruments scenario: read the results from this JSON file instead of measuring")
	busy := fs.Int("busy", 0, "instruments scenario: keep this many busy loops spinning while measuring, to load the host")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *instr > 0 || *load != "" {
		e := instrumentEval{rounds: *instr, draws: *draws, simRounds: 3, wallRounds: max(*instr/2, 3), seed: *seed, busy: *busy, save: *save, load: *load}
		if *instr > 0 && *instr < 6 {
			return fmt.Errorf("-instruments %d: want at least 6 rounds, so that draws of 3 differ", *instr)
		}
		if *busy < 0 {
			return fmt.Errorf("-busy %d: want 0 or more", *busy)
		}
		return e.run(ctx, stdout, stderr)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *n < 1 {
		return fmt.Errorf("-n %d: need at least one suite", *n)
	}
	if *start < 2 || *maxRounds < max(*start, 10) {
		return fmt.Errorf("-start %d, -max %d: want 2 <= start <= max and max >= 10", *start, *maxRounds)
	}
	cfg := config{suites: *n, seed: *seed, benchmarks: 50, changed: 10, samples: 10, history: 8,
		maxRounds: *maxRounds, startRounds: *start, targetPct: *target}
	methods := allMethods
	if *only != "" {
		methods = nil
		for _, name := range strings.Split(*only, ",") {
			i := slices.IndexFunc(allMethods, func(m method) bool { return m.name == name })
			if i < 0 {
				return fmt.Errorf("-methods: no method %q", name)
			}
			methods = append(methods, allMethods[i])
		}
	}
	scenarios := []scenario{simulated{}}
	for _, path := range strings.Split(*real, ",") {
		if path == "" {
			continue
		}
		series, err := loadReal(ctx, path)
		if err != nil {
			return err
		}
		scenarios = append(scenarios, realRuns{label: "real:" + strings.TrimSuffix(filepath.Base(path), ".txt"), series: series})
	}
	var rows []tableRow
	for _, sc := range scenarios {
		r, err := evaluate(ctx, sc, cfg, methods)
		if err != nil {
			return err
		}
		rows = append(rows, r...)
	}
	printTable(stdout, cfg, rows)
	return nil
}
