package compare

import (
	"fmt"
	"github.com/perfbot/perfbot/config"
	"math"
	"runtime"
	"sync"

	"golang.org/x/perf/benchmath"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/stats"
)

// Options control a comparison.
type Options struct {
	// Base names the baseline variant. Candidates name the others in
	// column order; when empty, every other variant is a candidate, in the
	// order it first appears.
	Base       string
	Candidates []string
	// Alpha is the significance level (default 0.05).
	Alpha float64
	// Confidence is the confidence level of the intervals (default 0.95).
	Confidence float64
	// NoiseFloorPct is the half-width, in percent of the centre, above
	// which an undecided result is called noisy rather than same
	// (default 5).
	NoiseFloorPct float64
	// Verdicts choose the method, pairing, history and bootstrap behind
	// the verdicts (see verdict.go).
	Verdicts VerdictOptions
}

func (o *Options) defaults() {
	if o.Alpha == 0 {
		o.Alpha = config.DefaultAlpha
	}
	if o.Confidence == 0 {
		o.Confidence = 0.95
	}
	if o.NoiseFloorPct == 0 {
		o.NoiseFloorPct = config.DefaultNoiseFloorPct
	}
}

// series is every measurement of one row on one variant.
type series struct {
	samples   []float64
	summaries []bench.Summary
}

// Compare compares results, which may come from many files, rounds and
// variants, and returns one Row per benchmark, parameter set and metric, in
// the order the rows first appear.
func Compare(results []*bench.Result, opts Options) (*Comparison, error) {
	c, err := NewCollector(opts)
	if err != nil {
		return nil, err
	}
	for _, r := range results {
		if err := c.Add(r); err != nil {
			return nil, err
		}
	}
	return c.Compare()
}

// Compare compares the results added so far, as the package's Compare
// does.
func (c *Collector) Compare() (*Comparison, error) {
	opts := c.opts
	candidates := c.variants[1:]
	if len(candidates) == 0 {
		return nil, fmt.Errorf("compare: no candidate variant besides the baseline %q", opts.Base)
	}
	method := opts.Verdicts.Method
	if method == "" {
		method = MethodPerfbot
	}
	cmp := &Comparison{Base: opts.Base, Candidates: candidates, Method: method}
	cmp.Rows = make([]Row, c.rows.len())
	c.index = nil // no more Add: the rows' keys can go
	memo := newMemo()
	workers := runtime.GOMAXPROCS(0)
	if opts.Verdicts.History != nil || c.rows.len() < minParallelRows {
		// History is the caller's function, not known to be safe
		// for concurrent use; small suites gain nothing.
		workers = 1
	}
	if workers == 1 {
		c.compareRows(cmp.Rows, 0, memo)
	} else {
		// Rows are independent: each worker compares a contiguous
		// share with its own memo, whose values depend only on their
		// keys, so the figures are those of one worker.
		var wg sync.WaitGroup
		per := (c.rows.len() + workers - 1) / workers
		for lo := 0; lo < c.rows.len(); lo += per {
			hi := min(lo+per, c.rows.len())
			m := memo
			if lo > 0 {
				m = newMemo()
			}
			wg.Go(func() { c.compareRows(cmp.Rows[lo:hi], lo, m) })
		}
		wg.Wait()
	}
	c.rows = rowStore{}
	cmp.Summary = tally(cmp)
	cmp.Geomean = geomean(cmp)
	settle(cmp, opts, memo)
	instruments(cmp)
	return cmp, nil
}

// minParallelRows is the number of rows from which Compare spreads them
// over the processors.
const minParallelRows = 2000

// compareRows fills rows with the comparisons of c.rows[first:], one
// each, and lets go of the series they were made from.
func (c *Collector) compareRows(rows []Row, first int, memo *memo) {
	opts := c.opts
	candidates := c.variants[1:]
	for i := range rows {
		rd := c.rows.at(first + i)
		p := &rd.id
		row := Row{
			Benchmark: p.Benchmark,
			Group:     p.Group,
			Params:    p.Params,
			Unit:      p.Unit,
			Metric:    p.Metric,
			Better:    p.Better,
		}
		if s := rd.side(0); s != nil {
			cell := summarize(s, opts.Confidence, opts.Verdicts.Paired)
			row.Base = &cell
		}
		row.Candidates = make([]Candidate, 0, len(candidates))
		for vi, v := range candidates {
			cand := Candidate{Variant: v}
			s := rd.side(vi + 1)
			switch {
			case s == nil && row.Base == nil:
				continue
			case s == nil:
				cand.Presence = Removed
			case row.Base == nil:
				cand.Cell = summarize(s, opts.Confidence, opts.Verdicts.Paired)
				cand.Presence = Added
			default:
				cand.Cell = summarize(s, opts.Confidence, opts.Verdicts.Paired)
				if row.Metric == bench.Simulated && opts.Verdicts.Method != MethodBenchstat {
					decideSimulated(row.Base, &cand, row.Better, opts, rowNoise(&row, opts))
				} else {
					decide(row.Base, &cand, row.Unit, row.Better, opts, memo)
				}
			}
			row.Candidates = append(row.Candidates, cand)
		}
		rows[i] = row
		// The comparison keeps what it needs; the collected series
		// can go.
		rd.sides = nil
	}
}

// rowNoise is what history says about a row's noise, or nil.
func rowNoise(row *Row, opts Options) *stats.Noise {
	if opts.Verdicts.History == nil {
		return nil
	}
	if n, ok := opts.Verdicts.History(row); ok {
		return &n
	}
	return nil
}

// summarize turns a variant's measurements into a Cell. Samples give the
// median and its distribution-free confidence interval, as benchstat does.
// Several summaries of one benchmark (one per round) are treated as samples
// of the round means; a single summary is kept as the tool gave it. Rounds
// are kept only for paired tests.
func summarize(s *series, confidence float64, paired bool) Cell {
	values := s.samples
	if len(values) == 0 && len(s.summaries) > 1 {
		for _, sm := range s.summaries {
			values = append(values, sm.Mean)
		}
	}
	if len(values) > 0 {
		split := halvesSplit(values)
		var sorted []float64
		if paired {
			// One allocation holds both the values in round order and
			// sorted.
			both := make([]float64, 2*len(values))
			rounds := both[:len(values):len(values)]
			sorted = both[len(values):]
			copy(rounds, values)
			copy(sorted, values)
			values = rounds
		} else {
			// The series is the collector's own and read once: sort it
			// in place. Only paired tests read the rounds.
			sorted, values = values, nil
		}
		sample := benchmath.NewSample(sorted, &benchmath.DefaultThresholds)
		sum := benchmath.AssumeNothing.Summary(sample, confidence)
		c := Cell{Center: sum.Center, Lo: sum.Lo, Hi: sum.Hi, N: len(sorted), Samples: sample.Values, Rounds: values, split: split}
		for _, w := range sum.Warnings {
			c.Warnings = append(c.Warnings, w.Error())
		}
		return c
	}
	sm := s.summaries[0]
	c := Cell{Center: sm.Mean, Lo: sm.Mean, Hi: sm.Mean, N: sm.N, Summarized: true, Summary: &sm}
	if sm.Error > 0 && !math.IsNaN(sm.Error) {
		c.Lo, c.Hi = sm.Mean-sm.Error, sm.Mean+sm.Error
	}
	return c
}

func tally(cmp *Comparison) []Tally {
	ts := make([]Tally, len(cmp.Candidates))
	idx := map[string]int{}
	for i, v := range cmp.Candidates {
		ts[i].Variant = v
		idx[v] = i
	}
	for _, row := range cmp.Rows {
		for _, c := range row.Candidates {
			t := &ts[idx[c.Variant]]
			switch {
			case c.Presence == Added:
				t.Added++
			case c.Presence == Removed:
				t.Removed++
			case c.Verdict == Better:
				t.Better++
			case c.Verdict == Worse:
				t.Worse++
			case c.Verdict == Noisy:
				t.Noisy++
			default:
				t.Same++
			}
		}
	}
	return ts
}

// geomean computes, per group, metric and unit, the geometric mean of the centres of the rows
// that the baseline and every candidate measured, like benchstat's geomean
// row.
func geomean(cmp *Comparison) Geomean {
	type acc struct {
		group, metric, unit string
		n                   int
		base                float64
		cand                []float64
	}
	var units []string
	accs := map[string]*acc{}
rows:
	for _, row := range cmp.Rows {
		if row.Base == nil || row.Base.Center <= 0 || len(row.Candidates) != len(cmp.Candidates) {
			continue
		}
		for _, c := range row.Candidates {
			if c.Presence != Both || c.Center <= 0 {
				continue rows
			}
		}
		key := row.Group + "\x00" + row.Metric + "\x00" + row.Unit
		a := accs[key]
		if a == nil {
			a = &acc{group: row.Group, metric: row.Metric, unit: row.Unit, cand: make([]float64, len(cmp.Candidates))}
			accs[key] = a
			units = append(units, key)
		}
		a.n++
		a.base += math.Log(row.Base.Center)
		for i, c := range row.Candidates {
			a.cand[i] += math.Log(c.Center)
		}
	}
	var g Geomean
	for _, u := range units {
		a := accs[u]
		if a.n < 2 {
			continue // a geomean of one row says nothing the row does not
		}
		gu := GeomeanUnit{Group: a.group, Metric: a.metric, Unit: a.unit, Benchmarks: a.n, Base: math.Exp(a.base / float64(a.n))}
		for i, v := range cmp.Candidates {
			val := math.Exp(a.cand[i] / float64(a.n))
			ratio := val / gu.Base
			gu.Candidates = append(gu.Candidates, GeomeanCandidate{Variant: v, Value: val, Ratio: ratio, DeltaPct: (ratio - 1) * 100})
		}
		g.Units = append(g.Units, gu)
	}
	return g
}
