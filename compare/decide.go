package compare

import (
	"fmt"
	"math"
	"slices"

	"github.com/perfbot/perfbot/bench"
)

// DefaultTargetPct is the change a "same" verdict must rule out before a
// benchmark counts as decided, when Undecided is given 0. It matches the
// default noise floor.
const DefaultTargetPct = 5

// Pending is a row and candidate that more rounds could still decide.
type Pending struct {
	// Key is the row's key, as bench.Result.Key gives it for the row's
	// results.
	Key string
	// Name names the row, unit, candidate and verdict for progress lines.
	Name string
	// P is the candidate's p-value, 1 when there is none.
	P float64
}

// Undecided compares results as opts say (opts.Base and opts.Candidates
// name the variants) and returns, in row order, each candidate measured on
// both sides that is neither Decided at targetPct (0: DefaultTargetPct) nor
// a row of simulated counts whose repeats agree. The geomean's interval is
// not computed: it plays no part. An error means the results cannot be
// compared (a side measured nothing): more rounds would not help.
func Undecided(results []*bench.Result, opts Options, targetPct float64) ([]Pending, error) {
	if targetPct <= 0 {
		targetPct = DefaultTargetPct
	}
	opts.Verdicts.BootstrapIterations = -1
	c, err := Compare(results, opts)
	if err != nil {
		return nil, err
	}
	var pending []Pending
	for i := range c.Rows {
		row := &c.Rows[i]
		for j := range row.Candidates {
			cand := &row.Candidates[j]
			if cand.Presence != Both || Decided(cand, targetPct) || countsAgree(row, cand) {
				continue
			}
			p := cand.P
			if math.IsNaN(p) {
				p = 1
			}
			pending = append(pending, Pending{
				Key:  row.Key(),
				Name: fmt.Sprintf("%s (%s, %s: %s)", row.Benchmark, row.Unit, cand.Variant, cand.Verdict),
				P:    p,
			})
		}
	}
	return pending, nil
}

// simAgreePct is how far apart, in percent of the smallest, one side's
// simulated counts may lie and still agree: repeats of the same code under
// cachegrind land within a few hundredths of a percent of each other.
const simAgreePct = 0.05

// countsAgree reports whether a row of simulated counts has at least two
// rounds on each side and each side's repeats agree within simAgreePct:
// the counts are deterministic, so more rounds would repeat them and
// could not change the verdict.
func countsAgree(row *Row, cand *Candidate) bool {
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
