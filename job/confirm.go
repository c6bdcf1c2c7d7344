package job

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/provenance"
	"github.com/perfbot/perfbot/runner"
)

// confirmRegressions reruns, once and on this host, the benchmarks that
// cmp calls worse: fresh rounds of only those benchmarks (of Go suites;
// other suites run whole) and only the candidates that regressed, in
// another random order (the next seed). cmp then keeps worse only what
// the second run calls worse too (compare.Comparison.Confirm); a failed
// rerun confirms nothing. It returns an error only when ctx ends.
func confirmRegressions(ctx context.Context, cmp *compare.Comparison, opts runner.Options, cmpOpts compare.Options, tr *tracker) error {
	_, variants := cmp.Regressions()
	if len(variants) == 0 {
		return nil
	}
	tr.stage("confirm")
	start := time.Now()
	again := opts
	again.Seed = cmp.Provenance.Seed + 1
	if len(opts.Candidates) > 0 {
		again.Candidates = nil
		for _, c := range opts.Candidates {
			if slices.Contains(variants, c.Name) {
				again.Candidates = append(again.Candidates, c)
			}
		}
	}
	again.Suites = keepAutoChoices(opts.Suites, cmp.Provenance.Suites)
	if pattern := regressedGoBenchmarks(cmp); pattern != "" {
		for i := range again.Suites {
			if again.Suites[i].Preset == "go" {
				again.Suites[i].Go.Bench = pattern
			}
		}
	}
	second, why := rerun(ctx, again, cmpOpts)
	if err := ctx.Err(); err != nil {
		return err
	}
	cmp.Confirm(second, why)
	if t := cmp.Provenance.Timing; t != nil {
		t.Add("confirmation of regressions (second run)", provenance.StageBenchmark, time.Since(start))
	}
	return nil
}

// rerun runs and compares the sides again; nil and why when it cannot.
func rerun(ctx context.Context, opts runner.Options, cmpOpts compare.Options) (*compare.Comparison, string) {
	ro, err := runner.Run(ctx, opts)
	if err != nil {
		return nil, "the second run failed: " + err.Error()
	}
	if len(ro.Results) == 0 {
		return nil, "the second run measured nothing"
	}
	cmpOpts.Base, cmpOpts.Candidates = ro.Variants[0], ro.Variants[1:]
	cmpOpts.Verdicts.BootstrapIterations = -1
	second, err := compare.Compare(ro.Results, cmpOpts)
	if err != nil {
		return nil, "the second run could not be compared: " + err.Error()
	}
	return second, ""
}

// keepAutoChoices returns a copy of suites in which each suite whose
// instrument was auto measures with what the first run chose (prov), so
// the second run measures the same units instead of probing the host
// again and perhaps choosing the other instrument.
func keepAutoChoices(suites []config.Suite, prov []provenance.Suite) []config.Suite {
	out := slices.Clone(suites)
	for i := range out {
		if !out[i].AutoInstrument() {
			continue
		}
		for _, p := range prov {
			if p.Name == out[i].Name && p.InstrumentWhy != "" && p.Instrument != "" {
				out[i].Instrument = p.Instrument
				break
			}
		}
	}
	return out
}

// regressedGoBenchmarks is a go test -bench pattern that selects the
// top-level benchmarks of the rows cmp calls worse.
func regressedGoBenchmarks(cmp *compare.Comparison) string {
	var names []string
	for i := range cmp.Rows {
		row := &cmp.Rows[i]
		for _, c := range row.Candidates {
			if c.Presence != compare.Both || c.Verdict != compare.Worse {
				continue
			}
			top, _, sub := strings.Cut(row.Benchmark, "/")
			top = strings.TrimPrefix(top, "Benchmark")
			tops := []string{top}
			if !sub {
				// go test appends -GOMAXPROCS to the last part of a name
				// (Work-2) but matches -bench against the name without it.
				if t := bench.TrimProcs(top); t != top {
					tops = append(tops, t)
				}
			}
			for _, t := range tops {
				if q := regexp.QuoteMeta(t); t != "" && !slices.Contains(names, q) {
					names = append(names, q)
				}
			}
		}
	}
	if len(names) == 0 {
		return ""
	}
	return fmt.Sprintf("^Benchmark(%s)$", strings.Join(names, "|"))
}
