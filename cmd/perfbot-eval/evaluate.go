package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/stats"
)

type config struct {
	suites, benchmarks, changed, samples, history int
	// maxRounds caps the rounds adaptive sampling may give one benchmark;
	// startRounds is where it starts; targetPct is the MDE below which a
	// benchmark counts as decided.
	maxRounds, startRounds int
	targetPct              float64
	seed                   uint64
}

// scenario picks benchmarks.
type scenario interface {
	name() string
	pick(rng *rand.Rand) source
}

// source draws rounds of one benchmark: n baseline and n candidate values,
// the candidate's scaled by factor.
type source interface {
	rounds(rng *rand.Rand, n int, factor float64) (base, cand []float64)
}

// method is one way of reaching verdicts.
type method struct {
	name     string
	opts     compare.VerdictOptions
	history  bool
	adaptive bool
}

// allMethods are the methods the command knows, in table order.
var allMethods = []method{
	{name: "benchstat", opts: compare.VerdictOptions{Method: compare.MethodBenchstat}},
	{name: "perfbot", opts: compare.VerdictOptions{Method: compare.MethodPerfbot}},
	{name: "perfbot-q0.1", opts: compare.VerdictOptions{Method: compare.MethodPerfbot, FDR: 0.1}},
	{name: "perfbot-q0.2", opts: compare.VerdictOptions{Method: compare.MethodPerfbot, FDR: 0.2}},
	{name: "perfbot-paired", opts: compare.VerdictOptions{Method: compare.MethodPerfbot, Paired: true}},
	{name: "perfbot-history", opts: compare.VerdictOptions{Method: compare.MethodPerfbot}, history: true},
	{name: "perfbot-adaptive", opts: compare.VerdictOptions{Method: compare.MethodPerfbot}, adaptive: true},
}

// tiered is a source that knows its noise class (see simBench.tier).
type tiered interface{ tier() int }

// tierNames name the noise classes of simulated benchmarks.
var tierNames = []string{"sigma<1.5%", "1.5-4%", "4-10%"}

// changes are the slow-downs whose detection is measured.
var changes = []float64{1, 2, 5, 10}

type tableRow struct {
	scenario, method string
	comparisons      int       // no-change comparisons
	flagged          int       // of which flagged better or worse
	noisy            int       // of which called noisy
	suitesFlagged    int       // no-change suites with a flag
	detected         []float64 // per change size, share of changed rows flagged worse
	wrongFlags       []float64 // per change size, share of unchanged rows flagged
	// tierHit and tierN count, per noise class, the changed rows flagged
	// worse and all changed rows at a 5% change.
	tierHit, tierN []int
}

// suite is one drawn suite: per benchmark its rounds and, for the history
// method, the deltas of earlier no-change comparisons.
type suite struct {
	base, cand [][]float64
	history    [][]float64
	tiers      []int // noise class per benchmark, -1 when unknown
}

func drawSuite(rng *rand.Rand, sc scenario, cfg config, changePct float64) suite {
	var s suite
	for b := range cfg.benchmarks {
		src := sc.pick(rng)
		// Earlier no-change comparisons of the same benchmark, with
		// fresh noise: the history a calibration run would leave.
		hist := make([]float64, cfg.history)
		for h := range hist {
			hb, hc := src.rounds(rng, cfg.samples, 1)
			hist[h] = 100 * (stats.Median(hc)/stats.Median(hb) - 1)
		}
		factor := 1.0
		if b < cfg.changed {
			factor = 1 + changePct/100
		}
		base, cand := src.rounds(rng, cfg.maxRounds, factor)
		s.base = append(s.base, base)
		s.cand = append(s.cand, cand)
		s.history = append(s.history, hist)
		tier := -1
		if t, ok := src.(tiered); ok {
			tier = t.tier()
		}
		s.tiers = append(s.tiers, tier)
	}
	return s
}

func evaluate(ctx context.Context, sc scenario, cfg config, methods []method) ([]tableRow, error) {
	rows := make([]tableRow, len(methods))
	for i, m := range methods {
		rows[i] = tableRow{scenario: sc.name(), method: m.name,
			detected: make([]float64, len(changes)), wrongFlags: make([]float64, len(changes)),
			tierHit: make([]int, len(tierNames)), tierN: make([]int, len(tierNames))}
	}
	sizes := append([]float64{0}, changes...)
	for si, change := range sizes {
		rng := rand.New(rand.NewPCG(cfg.seed, uint64(si)))
		for range cfg.suites {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			s := drawSuite(rng, sc, cfg, change)
			for mi, m := range methods {
				verdicts, err := runMethod(s, m, cfg)
				if err != nil {
					return nil, fmt.Errorf("%s %s: %w", sc.name(), m.name, err)
				}
				r := &rows[mi]
				flaggedHere := false
				for b, v := range verdicts {
					changed := change != 0 && b < cfg.changed
					flagged := v == compare.Better || v == compare.Worse
					switch {
					case change == 0:
						r.comparisons++
						if flagged {
							r.flagged++
							flaggedHere = true
						}
						if v == compare.Noisy {
							r.noisy++
						}
					case changed:
						if v == compare.Worse {
							r.detected[si-1]++
						}
						if t := s.tiers[b]; change == 5 && t >= 0 {
							r.tierN[t]++
							if v == compare.Worse {
								r.tierHit[t]++
							}
						}
					case !changed && flagged:
						r.wrongFlags[si-1]++
					}
				}
				if change == 0 && flaggedHere {
					r.suitesFlagged++
				}
			}
		}
	}
	for i := range rows {
		for c := range changes {
			rows[i].detected[c] /= float64(cfg.suites * cfg.changed)
			rows[i].wrongFlags[c] /= float64(cfg.suites * (cfg.benchmarks - cfg.changed))
		}
	}
	return rows, nil
}

// runMethod gives every benchmark cfg.samples rounds, or, for an adaptive
// method, starts with cfg.startRounds and spends the same total budget on
// the benchmarks still undecided, and returns the final verdicts.
func runMethod(s suite, m method, cfg config) ([]compare.Verdict, error) {
	n := make([]int, len(s.base))
	for b := range n {
		n[b] = min(cfg.samples, len(s.base[b]))
	}
	if !m.adaptive {
		cands, err := judgeSuite(s, n, m)
		return verdictsOf(cands), err
	}
	budget := 0
	for _, v := range n {
		budget += v
	}
	used := 0
	for b := range n {
		n[b] = min(cfg.startRounds, len(s.base[b]))
		used += n[b]
	}
	for {
		cands, err := judgeSuite(s, n, m)
		if err != nil {
			return nil, err
		}
		// The undecided benchmarks below the cap, smallest p first, as
		// perfbot's runner picks them.
		var order []int
		for b := range cands {
			if !compare.Decided(&cands[b], cfg.targetPct) && n[b]+2 <= len(s.base[b]) {
				order = append(order, b)
			}
		}
		sort.SliceStable(order, func(i, j int) bool { return cands[order[i]].P < cands[order[j]].P })
		added := false
		for _, b := range order {
			if used+2 <= budget {
				n[b] += 2
				used += 2
				added = true
			}
		}
		if !added {
			return verdictsOf(cands), nil
		}
	}
}

func verdictsOf(cands []compare.Candidate) []compare.Verdict {
	out := make([]compare.Verdict, len(cands))
	for i, c := range cands {
		out[i] = c.Verdict
	}
	return out
}

// judgeSuite runs one suite, with n[b] rounds of benchmark b, through
// compare.Compare and returns each benchmark's candidate cell.
func judgeSuite(s suite, n []int, m method) ([]compare.Candidate, error) {
	var results []*bench.Result
	for b := range s.base {
		name := fmt.Sprintf("B%02d", b)
		results = append(results,
			&bench.Result{Benchmark: name, Unit: "ns/op", Variant: "base", Samples: s.base[b][:n[b]]},
			&bench.Result{Benchmark: name, Unit: "ns/op", Variant: "new", Samples: s.cand[b][:n[b]]})
	}
	opts := m.opts
	opts.BootstrapIterations = -1
	if m.history {
		rule := stats.NoiseRule{FloorPct: 0.5}
		index := map[string]int{}
		for b := range s.base {
			index[fmt.Sprintf("B%02d", b)] = b
		}
		opts.History = func(row *compare.Row) (stats.Noise, bool) {
			n, err := rule.Learn(s.history[index[row.Benchmark]])
			return n, err == nil
		}
	}
	cmp, err := compare.Compare(results, compare.Options{Base: "base", Verdicts: opts})
	if err != nil {
		return nil, err
	}
	out := make([]compare.Candidate, len(cmp.Rows))
	for i, row := range cmp.Rows {
		out[i] = row.Candidates[0]
	}
	return out, nil
}
