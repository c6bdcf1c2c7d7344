package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/runner"
	"github.com/perfbot/perfbot/stats"
	"github.com/perfbot/perfbot/store"
)

// noiseKeep is how many of a benchmark's latest no-change deltas the noise
// threshold is learned from, so that an old machine setup fades out.
const noiseKeep = 50

// noiseRule is how thresholds are learned from history: rustc-perf's
// interquartile-range fence, never below 0.5%, as compare/eval measures it.
var noiseRule = stats.NoiseRule{FloorPct: 0.5}

// calibrateCmd implements "perfbot calibrate": it runs the baseline against
// itself (two worktrees of one commit, "base" and "base-again") and stores
// each benchmark's observed change, which can only be noise, in the
// history, where later comparisons on this host learn their noise
// thresholds from it.
func calibrateCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var f compareFlags
	fs := newFlagSet("calibrate", stderr)
	f.addRunFlags(fs)
	fs.StringVar(&f.base, "ref", "", "the ref measured against itself (default: the config's project.branch, else HEAD)")
	fs.Uint64Var(&f.seed, "seed", 0, "seed of the rounds' random order (default: random)")
	fs.StringVar(&f.db, "db", "perfbot.db", "history database the deltas go to: a SQLite file or a postgres:// URL")
	fs.StringVar(&f.driver, "driver", "", "store driver: sqlite or postgres (default: from --db)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: perfbot calibrate [--config FILE] [--repo REPO] [--ref REF] [--suite NAME]... [--count N] [--db FILE|URL]\n")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	db, err := f.dsn()
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
	opts.Seed = f.seed
	opts.BaseName = "base"
	again := runner.Candidate{Name: "base-again", Ref: opts.Base}
	if hasVariants(opts) {
		// Both sides run under the baseline variant's settings.
		base, _, err := runner.VariantCandidates(opts.Suites)
		if err != nil {
			return err
		}
		opts.BaseSettings, again.Settings = base, base
		if base.Ref != "" {
			opts.Base, again.Ref = base.Ref, base.Ref
		}
	}
	opts.Candidates = []runner.Candidate{again}
	// Open the store first: a wrong --db should not cost a whole run.
	st, err := store.Open(ctx, storeDriver(f.driver, db), db)
	if err != nil {
		return err
	}
	defer st.Close()
	outcome, err := runner.Run(ctx, opts)
	if err != nil {
		return err
	}
	for _, fl := range outcome.Failures {
		fmt.Fprintf(stderr, "perfbot: %s %s: %s\n", fl.Variant, fl.Stage, fl.Message)
	}
	cmp, err := compare.Compare(outcome.Results, compare.Options{Base: "base", Candidates: []string{"base-again"},
		Verdicts: compare.VerdictOptions{BootstrapIterations: -1}})
	if err != nil {
		return err
	}
	host := outcome.Provenance.Host.Name
	var deltas []store.NoiseDelta
	for i := range cmp.Rows {
		row := &cmp.Rows[i]
		c := row.Candidates[0]
		if c.Presence != compare.Both || math.IsNaN(c.DeltaPct) || math.IsInf(c.DeltaPct, 0) {
			continue
		}
		k, err := store.NoiseKeyOf(row)
		if err != nil {
			return err
		}
		deltas = append(deltas, store.NoiseDelta{Key: k, DeltaPct: c.DeltaPct})
	}
	if len(deltas) == 0 {
		return &exitError{code: 1, err: errors.New("calibrate: no benchmark was measured on both sides: see the failures above")}
	}
	if err := st.AddNoise(ctx, host, time.Now(), deltas); err != nil {
		return err
	}
	past, err := st.Noise(ctx, host, noiseKeep)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "benchmark\tunit\tdelta\truns\tthreshold\t\n")
	for _, d := range deltas {
		th := "-"
		if n, err := noiseRule.Learn(past[d.Key]); err == nil {
			th = fmt.Sprintf("%.2f%%", n.ThresholdPct)
			if n.Unstable {
				th += " unstable"
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%+.2f%%\t%d\t%s\t\n", rowName(d.Key), d.Key.Unit, d.DeltaPct, len(past[d.Key]), th)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "recorded %d no-change deltas for host %s in %s (seed %d)\n", len(deltas), host, redactDSN(db), outcome.Provenance.Seed)
	return nil
}

// hasVariants reports whether a suite compares settings variants.
func hasVariants(opts runner.Options) bool {
	for _, s := range opts.Suites {
		if len(s.Variants) > 0 {
			return true
		}
	}
	return false
}

// rowName is a benchmark with its parameters, for tables.
func rowName(k store.NoiseKey) string {
	if k.Params == "" || k.Params == "{}" || k.Params == "null" {
		return k.Benchmark
	}
	return k.Benchmark + " " + k.Params
}

// redactDSN hides a URL's password.
func redactDSN(dsn string) string {
	if i := strings.Index(dsn, "://"); i >= 0 {
		if at := strings.LastIndex(dsn, "@"); at > i {
			if c := strings.Index(dsn[i+3:at], ":"); c >= 0 {
				return dsn[:i+3+c] + ":xxxxx" + dsn[at:]
			}
		}
	}
	return dsn
}

// dsn returns --db, or the value of the variable --db-env names.
func (f *compareFlags) dsn() (string, error) {
	if f.dbEnv == "" {
		return f.db, nil
	}
	v := os.Getenv(f.dbEnv)
	if v == "" {
		return "", usagef("--db-env %s: the variable is empty or unset", f.dbEnv)
	}
	return v, nil
}

// noiseHistory is what past no-change runs on this host say about each
// benchmark's noise.
type noiseHistory struct {
	host   string
	deltas map[store.NoiseKey][]float64
	learnt map[store.NoiseKey]*stats.Noise
}

// noiseHistory loads the noise history of this host from --db; nil when no
// database is given.
func (f *compareFlags) noiseHistory(ctx context.Context) (*noiseHistory, error) {
	db, err := f.dsn()
	if err != nil || db == "" {
		return nil, err
	}
	// The runner records the host under the same name.
	host, err := os.Hostname()
	if err != nil {
		return nil, fmt.Errorf("noise history: %w", err)
	}
	st, err := store.Open(ctx, storeDriver(f.driver, db), db)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	deltas, err := st.Noise(ctx, host, noiseKeep)
	if err != nil {
		return nil, err
	}
	return &noiseHistory{host: host, deltas: deltas, learnt: map[store.NoiseKey]*stats.Noise{}}, nil
}

// lookup is compare.VerdictOptions.History.
func (h *noiseHistory) lookup(row *compare.Row) (stats.Noise, bool) {
	k, err := store.NoiseKeyOf(row)
	if err != nil {
		return stats.Noise{}, false
	}
	n, ok := h.learnt[k]
	if !ok {
		if learnt, err := noiseRule.Learn(h.deltas[k]); err == nil {
			n = &learnt
		}
		h.learnt[k] = n
	}
	if n == nil {
		return stats.Noise{}, false
	}
	return *n, true
}

// annotate marks the candidates whose verdict used a learned threshold and
// says in a warning how many did.
func (h *noiseHistory) annotate(cmp *compare.Comparison) {
	if h == nil {
		return
	}
	used, total := 0, 0
	for i := range cmp.Rows {
		row := &cmp.Rows[i]
		for j := range row.Candidates {
			c := &row.Candidates[j]
			if c.Presence != compare.Both || c.Test == "" || c.Test == compare.TestExact {
				continue
			}
			total++
			n, ok := h.lookup(row)
			if !ok {
				continue
			}
			used++
			th := n.ThresholdPct
			c.NoiseThresholdPct, c.NoiseHistory = &th, n.N
			msg := fmt.Sprintf("noise threshold %.1f%% from %d past runs", th, n.N)
			if n.Unstable {
				msg += " (unstable benchmark)"
			}
			c.Warnings = append(c.Warnings, msg)
		}
	}
	if total > 0 {
		cmp.Warnings = append(cmp.Warnings, fmt.Sprintf("noise thresholds learned from past no-change runs on %s (perfbot calibrate) applied to %d of %d comparisons", h.host, used, total))
	}
}
