package runner

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/config"
)

// Why adaptive sampling stopped, as compare.Suite.Stopped records it.
const (
	StopDecided  = "decided"
	StopMaxCount = "max_count"
	StopBudget   = "budget"
)

// defaultTargetPct is the change a "same" verdict must rule out before a
// benchmark counts as decided, when Options.TargetPct is 0. It matches
// compare's default noise floor.
const defaultTargetPct = 5

// A unit is what a suite can run on its own: a Go package's top-level
// benchmark (with its sub-benchmarks), or a command suite's matrix point.
// Sides name the unit behind each result, so that adaptive sampling can
// run just the units whose benchmarks are undecided.

// adaptive decides, after the suite's first Count rounds and after each
// block of rounds since, which units run one more block: those with a
// benchmark not yet decided (compare.Decided), smallest p-value first,
// while the suite's max_count and budget allow.
type adaptive struct {
	on     bool
	max    int
	budget config.Budget
	block  int
	target float64
	cmp    compare.Options
	// done counts each unit's rounds per side; units is how many units
	// the first rounds ran.
	done  map[string]int
	units int
	// unitOf maps a result's key to the unit that produced it.
	unitOf map[string]string
}

func newAdaptive(count, maxCount int, budget config.Budget, variants int, opts Options) *adaptive {
	a := &adaptive{
		on:     (maxCount > count || !budget.IsZero()) && variants >= 2,
		max:    maxCount,
		budget: budget,
		block:  max(variants, 1),
		target: opts.TargetPct,
		cmp:    opts.Compare,
		done:   map[string]int{},
		unitOf: map[string]string{},
	}
	if a.target <= 0 {
		a.target = defaultTargetPct
	}
	return a
}

// simAgreePct is how far apart, in percent of the smallest, one side's
// simulated counts may lie and still agree: repeats of the same code under
// cachegrind land within a few hundredths of a percent of each other.
const simAgreePct = 0.05

// countsAgree reports whether a row of simulated counts has at least two
// rounds on each side and each side's repeats agree within simAgreePct:
// the counts are deterministic, so more rounds would repeat them and
// could not change the verdict.
func countsAgree(row *compare.Row, cand *compare.Candidate) bool {
	if row.Metric != bench.Simulated || row.Base == nil {
		return false
	}
	for _, x := range [][]float64{row.Base.Samples, cand.Samples} {
		if len(x) < 2 || relRangePct(x) > simAgreePct {
			return false
		}
	}
	return true
}

// relRangePct is the range of x in percent of its smallest value,
// infinite when that is not positive.
func relRangePct(x []float64) float64 {
	lo, hi := slices.Min(x), slices.Max(x)
	if lo <= 0 {
		return math.Inf(1)
	}
	return 100 * (hi - lo) / lo
}

// of describes the planned number of rounds for progress lines.
func (a *adaptive) of(n int) string {
	switch {
	case !a.on:
		return fmt.Sprint(n)
	case a.max > 0:
		return fmt.Sprintf("%d (up to %d)", n, a.max)
	}
	return fmt.Sprintf("%d (budget %s)", n, a.budget)
}

// ran records which unit each result of a round came from; results of
// the unit "" (perf stat counters) play no part in the decisions.
func (a *adaptive) ran(results []*bench.Result, units []string) {
	for i, r := range results {
		if units[i] != "" {
			a.unitOf[r.Key()] = units[i]
		}
	}
}

// counted adds a round per side to each unit a round ran.
func (a *adaptive) counted(ran []string) {
	for _, u := range ran {
		a.done[u]++
	}
	a.units = max(a.units, len(a.done))
}

// runs is how many unit rounds each side ran.
func (a *adaptive) runs() int {
	n := 0
	for _, d := range a.done {
		n += d
	}
	return n
}

// plan returns the units to run in the next block, given the suite's
// results so far over the variants (the baseline first) and the time its
// rounds have taken, with why; or no units and why there will be none
// (StopDecided, StopMaxCount, StopBudget). It returns nil and "" when
// sampling is not adaptive or the results cannot be compared.
func (a *adaptive) plan(elapsed time.Duration, results []*bench.Result, variants []string) (units []string, rounds int, why string) {
	if !a.on {
		return nil, 0, ""
	}
	opts := a.cmp
	opts.Base, opts.Candidates = variants[0], variants[1:]
	// The geomean's interval plays no part in the decision.
	opts.Verdicts.BootstrapIterations = -1
	c, err := compare.Compare(results, opts)
	if err != nil {
		// Nothing to compare (a side measured nothing): more rounds
		// would not help.
		return nil, 0, ""
	}
	// The undecided units, each with the smallest p-value among its
	// undecided rows and one of them to name.
	type pending struct {
		unit, row string
		p         float64
	}
	byUnit := map[string]*pending{}
	capped := false
	for i := range c.Rows {
		row := &c.Rows[i]
		for j := range row.Candidates {
			cand := &row.Candidates[j]
			if cand.Presence != compare.Both || compare.Decided(cand, a.target) || countsAgree(row, cand) {
				continue
			}
			u, ok := a.unitOf[row.Key()]
			if !ok {
				continue
			}
			if a.max > 0 && a.done[u] >= a.max {
				capped = true
				continue
			}
			p := cand.P
			if math.IsNaN(p) {
				p = 1
			}
			name := fmt.Sprintf("%s (%s, %s: %s)", row.Benchmark, row.Unit, cand.Variant, cand.Verdict)
			if e := byUnit[u]; e == nil {
				byUnit[u] = &pending{unit: u, row: name, p: p}
			} else if p < e.p {
				e.p, e.row = p, name
			}
		}
	}
	if len(byUnit) == 0 {
		if capped {
			return nil, 0, StopMaxCount
		}
		return nil, 0, StopDecided
	}
	order := make([]*pending, 0, len(byUnit))
	for _, e := range byUnit {
		order = append(order, e)
	}
	slices.SortFunc(order, func(x, y *pending) int {
		return cmp.Or(cmp.Compare(x.p, y.p), strings.Compare(x.unit, y.unit))
	})
	// Each chosen unit costs a block of rounds per side.
	spent := a.runs()
	var room func(chosen int) bool
	switch {
	case a.budget.Rounds > 0:
		limit := a.budget.Rounds * a.units
		room = func(chosen int) bool { return spent+(chosen+1)*a.block <= limit }
	case a.budget.Time > 0 && spent > 0:
		perRun := elapsed / time.Duration(spent)
		room = func(chosen int) bool {
			return elapsed+perRun*time.Duration((chosen+1)*a.block) <= a.budget.Time
		}
	default:
		room = func(int) bool { return true }
	}
	for _, e := range order {
		if !room(len(units)) {
			break
		}
		units = append(units, e.unit)
	}
	if len(units) == 0 {
		return nil, 0, StopBudget
	}
	// A block, cut short where it would take a unit past max_count.
	rounds = a.block
	if a.max > 0 {
		for _, u := range units {
			rounds = min(rounds, a.max-a.done[u])
		}
	}
	why = order[0].row + " is undecided"
	if len(units) > 1 {
		why = fmt.Sprintf("%s and %d more undecided", order[0].row, len(units)-1)
	}
	return units, rounds, why
}
