package runner

import (
	"fmt"
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

// adaptive decides whether a suite runs more rounds: after its minimum
// count, while some benchmark is undecided (compare.Decided) and the
// suite's max_count and budget allow, one balanced block at a time.
type adaptive struct {
	on     bool
	max    int
	budget time.Duration
	block  int
	target float64
	cmp    compare.Options
}

func newAdaptive(suite *config.Suite, count, variants int, opts Options) *adaptive {
	a := &adaptive{
		on:     (suite.MaxCount > count || suite.Budget > 0) && variants >= 2,
		max:    suite.MaxCount,
		budget: time.Duration(suite.Budget),
		block:  max(variants, 1),
		target: opts.TargetPct,
		cmp:    opts.Compare,
	}
	if a.target <= 0 {
		a.target = defaultTargetPct
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

// more returns how many rounds to add after done rounds that took
// elapsed, with results the suite's results so far over the variants (the
// baseline first), and why: the undecided benchmark that asks for more, or
// why there will be none. It returns 0 and "" when sampling is not
// adaptive.
func (a *adaptive) more(done int, elapsed time.Duration, results []*bench.Result, variants []string) (int, string) {
	if !a.on {
		return 0, ""
	}
	undecided, ok := a.undecided(results, variants)
	if !ok {
		// Nothing to compare (a side measured nothing): more rounds
		// would not help.
		return 0, ""
	}
	if undecided == "" {
		return 0, StopDecided
	}
	n := a.block
	if a.max > 0 {
		if done >= a.max {
			return 0, StopMaxCount
		}
		n = min(n, a.max-done)
	}
	if a.budget > 0 && done > 0 {
		perRound := elapsed / time.Duration(done)
		if elapsed+perRound*time.Duration(n) > a.budget {
			return 0, StopBudget
		}
	}
	return n, undecided + " is undecided"
}

// undecided names the first benchmark and candidate whose comparison is
// not decided yet, or returns "" when every one is; false when the results
// cannot be compared.
func (a *adaptive) undecided(results []*bench.Result, variants []string) (string, bool) {
	opts := a.cmp
	opts.Base, opts.Candidates = variants[0], variants[1:]
	// The geomean's interval plays no part in the decision.
	opts.Verdicts.BootstrapIterations = -1
	cmp, err := compare.Compare(results, opts)
	if err != nil {
		return "", false
	}
	for i := range cmp.Rows {
		row := &cmp.Rows[i]
		for j := range row.Candidates {
			c := &row.Candidates[j]
			if c.Presence != compare.Both || compare.Decided(c, a.target) {
				continue
			}
			return fmt.Sprintf("%s (%s, %s: %s)", row.Benchmark, row.Unit, c.Variant, c.Verdict), true
		}
	}
	return "", true
}
