package track

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/track/changepoint"
)

// simSeries is the number of histories per scenario; docs/tracking.md's
// figures come from -sim.series 200.
var simSeries = flag.Int("sim.series", 4, "histories per scenario of TestSimulatePaths")

// host is a noise model of the runs on one host.
type host struct {
	name string
	// runSigma is the spread (log scale) of a whole run's speed, both
	// sides alike: the host between runs.
	runSigma float64
	// roundSigma is the spread of one round; outlier the chance of a
	// round slowed by up to outlierSize (a burst of load).
	roundSigma, outlier, outlierSize float64
	// exact: the counts repeat (cpu-sim): the same commit counts the same
	// in every round and run, commits differ in the sixth digit.
	exact bool
}

var simHosts = []host{
	{name: "cpu-sim", exact: true},
	{name: "wall time, idle host", runSigma: 0.03, roundSigma: 0.015, outlier: 0.05, outlierSize: 0.2},
	{name: "wall time, loaded host", runSigma: 0.25, roundSigma: 0.06, outlier: 0.15, outlierSize: 1.0},
}

// change is what the commits do to the benchmark: a step at commit at, or
// a drift of perCommit percent at each of the commits at..at+span-1.
type change struct {
	name      string
	stepPct   float64
	driftPct  float64
	driftSpan int
}

var simChanges = []change{
	{name: "none"},
	{name: "step +2%", stepPct: 2},
	{name: "step +5%", stepPct: 5},
	{name: "step +50%", stepPct: 50},
	{name: "drift +0.5%/commit x 10", driftPct: 0.5, driftSpan: 10},
}

const (
	simCommits = 60
	simAt      = 30
	simRounds  = 5
)

// level is the true cost of commit i.
func (c change) level(i int) float64 {
	v := 1000.0
	if c.stepPct != 0 && i >= simAt {
		v *= 1 + c.stepPct/100
	}
	for j := simAt; j < simAt+c.driftSpan && j <= i; j++ {
		v *= 1 + c.driftPct/100
	}
	return v
}

// changed says whether commit i changed the benchmark.
func (c change) changed(i int) bool {
	if c.stepPct != 0 {
		return i == simAt
	}
	return c.driftSpan > 0 && i >= simAt && i < simAt+c.driftSpan
}

// simHistory measures one history on h: each commit against its parent in
// alternating rounds, decided by compare as perfbot track's runs are. It
// returns each commit's centre as a candidate, the run's change against
// its baseline, and whether the run was decisive at minPct.
func simHistory(t *testing.T, h host, c change, rng *rand.Rand, minPct float64) (values, paired []float64, decisive []bool) {
	values = make([]float64, simCommits)
	paired = make([]float64, simCommits)
	decisive = make([]bool, simCommits)
	jitter := make([]float64, simCommits) // cpu-sim's per-commit sixth digit
	for i := range jitter {
		jitter[i] = 1 + rng.Float64()*1e-5
	}
	sample := func(i int, run float64) float64 {
		v := c.level(i) * jitter[i]
		if h.exact {
			return v
		}
		v *= run * math.Exp(rng.NormFloat64()*h.roundSigma)
		if rng.Float64() < h.outlier {
			v *= 1 + rng.Float64()*h.outlierSize
		}
		return v
	}
	for i := range simCommits {
		run := math.Exp(rng.NormFloat64() * h.runSigma)
		if i == 0 {
			values[0], paired[0] = sample(0, run), math.NaN()
			continue
		}
		var rs []*bench.Result
		rounds, unit, metric := simRounds, "ns/op", ""
		if h.exact {
			// cpu-sim stops at two rounds a side when the counts agree.
			rounds, unit, metric = 2, "instructions/op", bench.Simulated
		}
		for range rounds {
			for _, side := range []struct {
				variant string
				commit  int
			}{{"parent", i - 1}, {"commit", i}} {
				rs = append(rs, &bench.Result{Benchmark: "Sum", Unit: unit, Metric: metric, Better: bench.LowerIsBetter,
					Samples: []float64{sample(side.commit, run)}, Variant: side.variant})
			}
		}
		cmp, err := compare.Compare(rs, compare.Options{Base: "parent", Alpha: 0.05, NoiseFloorPct: 5,
			Verdicts: compare.VerdictOptions{BootstrapIterations: -1}})
		if err != nil {
			t.Fatal(err)
		}
		row := cmp.Rows[0]
		cand := row.Candidates[0]
		values[i] = cand.Center
		paired[i] = (cand.Center/row.Base.Center - 1) * 100
		decisive[i] = decisiveRow(row.Base, &cand, minPct)
	}
	return values, paired, decisive
}

// simHistoryPoints runs the history path on the first n commits: the
// change points changepoint.Detect finds that the commits' own runs
// confirm, as Detect keeps them.
func simHistoryPoints(t *testing.T, values, paired []float64, n int, minPct float64) []changepoint.Point {
	found, err := changepoint.Detect(values[:n], changepoint.Options{MinChangePct: minPct})
	if err != nil {
		t.Fatal(err)
	}
	var out []changepoint.Point
	for _, p := range found {
		if confirmed(p.DeltaPct, paired[p.Index]) {
			out = append(out, p)
		}
	}
	return out
}

// pathTally counts one path's outcomes over a scenario's histories.
type pathTally struct {
	changes, detected, delaySum int
	delays                      []int
	falseAlarms, quietCommits   int
}

func (p *pathTally) String() string {
	rate := "-"
	delay := "-"
	if p.changes > 0 {
		rate = fmt.Sprintf("%.0f%%", 100*float64(p.detected)/float64(p.changes))
		if len(p.delays) > 0 {
			slices.Sort(p.delays)
			delay = fmt.Sprintf("%.1f (max %d)", float64(p.delaySum)/float64(len(p.delays)), p.delays[len(p.delays)-1])
		}
	}
	return fmt.Sprintf("%-5s %6.2f  %-12s", rate, 100*float64(p.falseAlarms)/float64(p.quietCommits), delay)
}

// TestSimulatePaths measures both paths of Detect on simulated histories:
// 60 commits, a change at the 30th (or a drift from it), on cpu-sim and on
// wall time on an idle and a loaded host. Each history is followed as a
// service would: after each commit the history path searches what has
// been measured so far, and every change point it ever reports counts
// (an announced one is not withdrawn). A change is detected when a change
// point names its commit (a drift: one of its commits) in its direction;
// commits to detect count the commits measured after it before that. A
// false alarm is a change point at a commit that changed nothing.
func TestSimulatePaths(t *testing.T) {
	var out strings.Builder
	for _, minPct := range []float64{5, 1} {
		fmt.Fprintf(&out, "\nminimum change %g%%: detected  false/100  commits-to-detect (mean, max)\n", minPct)
		fmt.Fprintf(&out, "%-24s %-24s %-32s %-32s %-32s\n", "host", "change", "run path", "E-divisive alone", "both")
		for hi, h := range simHosts {
			for ci, c := range simChanges {
				var run, hist, both pathTally
				for s := range *simSeries {
					rng := rand.New(rand.NewPCG(uint64(hi*100+ci), uint64(s)))
					values, paired, decisive := simHistory(t, h, c, rng, minPct)
					runAt, histAt := -1, -1
					histFalse := map[int]bool{}
					for n := 2; n <= simCommits; n++ {
						for _, p := range simHistoryPoints(t, values, paired, n, minPct) {
							if c.changed(p.Index) && p.DeltaPct > 0 {
								if histAt < 0 {
									histAt = n - 1
								}
							} else {
								histFalse[p.Index] = true
							}
						}
					}
					runFalse := 0
					for i := 1; i < simCommits; i++ {
						if !decisive[i] {
							continue
						}
						if c.changed(i) && paired[i] > 0 {
							if runAt < 0 {
								runAt = i
							}
						} else {
							runFalse++
						}
					}
					quiet := simCommits - 1
					for i := 1; i < simCommits; i++ {
						if c.changed(i) {
							quiet--
						}
					}
					first := simAt
					bothAt := runAt
					if bothAt < 0 || histAt >= 0 && histAt < bothAt {
						bothAt = histAt
					}
					for _, x := range []struct {
						p      *pathTally
						at     int
						falses int
					}{{&run, runAt, runFalse}, {&hist, histAt, len(histFalse)}, {&both, bothAt, runFalse + len(histFalse)}} {
						x.p.quietCommits += quiet
						x.p.falseAlarms += x.falses
						if c.name == "none" {
							continue
						}
						x.p.changes++
						if x.at >= 0 {
							x.p.detected++
							x.p.delaySum += x.at - first
							x.p.delays = append(x.p.delays, x.at-first)
						}
					}
				}
				fmt.Fprintf(&out, "%-24s %-24s %-32s %-32s %-32s\n", h.name, c.name, &run, &hist, &both)
				// What must hold on any seed: under cpu-sim a 50% step is
				// named at once, and an unchanged commit never is.
				if h.exact && c.stepPct == 50 && (run.detected != run.changes || run.delaySum != 0) {
					t.Errorf("cpu-sim, +50%%: the run path found %d of %d steps, %d commits late", run.detected, run.changes, run.delaySum)
				}
				if h.exact && run.falseAlarms != 0 {
					t.Errorf("cpu-sim, %s: %d false alarms of the run path", c.name, run.falseAlarms)
				}
			}
		}
	}
	t.Log(out.String())
}
