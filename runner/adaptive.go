package runner

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/config"
)

// Why adaptive sampling stopped, as provenance.Suite.Stopped records it.
const (
	StopDecided  = "decided"
	StopMaxCount = "max_count"
	StopBudget   = "budget"
)

// An Undecided benchmark is one the job wants more rounds of.
type Undecided struct {
	// Key is the key (bench.Result.Key) of the benchmark's results.
	Key string
	// Name names it in progress lines.
	Name string
	// P orders the units to run: smallest first.
	P float64
}

// A Decide func is how the job tells the runner when to stop: given a
// suite's results so far over the variants (the baseline first), it
// returns the benchmarks still undecided. An error means the results
// cannot be compared (a side measured nothing), and sampling stops.
type Decide func(results []*bench.Result, variants []string) ([]Undecided, error)

// A unit is what a suite can run on its own: a Go package's top-level
// benchmark (with its sub-benchmarks), or a command suite's matrix point.
// Sides name the unit behind each result, so that adaptive sampling can
// run just the units whose benchmarks are undecided.

// adaptive chooses, after the suite's first Count rounds and after each
// block of rounds since, which units run one more block: those with a
// benchmark the Decide func calls undecided, smallest p-value first,
// while the suite's max_count and budget allow.
type adaptive struct {
	on     bool
	max    int
	budget config.Budget
	block  int
	decide Decide
	// done counts each unit's rounds per side; units is how many units
	// the first rounds ran.
	done  map[string]int
	units int
	// unitOf maps a result's key to the unit that produced it.
	unitOf map[string]string
}

func newAdaptive(count, maxCount int, budget config.Budget, variants int, opts Options) *adaptive {
	a := &adaptive{
		on:     (maxCount > count || !budget.IsZero()) && variants >= 2 && opts.Decide != nil,
		max:    maxCount,
		budget: budget,
		block:  max(variants, 1),
		decide: opts.Decide,
		done:   map[string]int{},
		unitOf: map[string]string{},
	}
	return a
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
	undecided, err := a.decide(results, variants)
	if err != nil {
		// Nothing to compare (a side measured nothing): more rounds
		// would not help.
		return nil, 0, ""
	}
	// The undecided units, each with the smallest p-value among its
	// undecided benchmarks and one of them to name.
	type pending struct {
		unit, row string
		p         float64
	}
	byUnit := map[string]*pending{}
	capped := false
	for _, b := range undecided {
		u, ok := a.unitOf[b.Key]
		if !ok {
			continue
		}
		if a.max > 0 && a.done[u] >= a.max {
			capped = true
			continue
		}
		if e := byUnit[u]; e == nil {
			byUnit[u] = &pending{unit: u, row: b.Name, p: b.P}
		} else if b.P < e.p {
			e.p, e.row = b.P, b.Name
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
