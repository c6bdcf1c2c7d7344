package compare

import (
	"fmt"
	"math"

	"golang.org/x/perf/benchmath"

	"github.com/perfbot/perfbot/bench"
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
		o.Alpha = 0.05
	}
	if o.Confidence == 0 {
		o.Confidence = 0.95
	}
	if o.NoiseFloorPct == 0 {
		o.NoiseFloorPct = 5
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
	opts.defaults()
	if opts.Base == "" {
		return nil, fmt.Errorf("compare: no baseline variant named")
	}
	type rowData struct {
		proto *bench.Result
		sides map[string]*series
	}
	var order []string
	rows := map[string]*rowData{}
	seenVariant := map[string]bool{opts.Base: true}
	candidates := append([]string(nil), opts.Candidates...)
	for _, c := range candidates {
		seenVariant[c] = true
	}
	for _, r := range results {
		if err := r.Validate(); err != nil {
			return nil, fmt.Errorf("compare: %s: %w", r.Source, err)
		}
		if !seenVariant[r.Variant] {
			if len(opts.Candidates) > 0 {
				continue // a variant the caller did not ask for
			}
			seenVariant[r.Variant] = true
			candidates = append(candidates, r.Variant)
		}
		key := r.Key()
		rd := rows[key]
		if rd == nil {
			rd = &rowData{proto: r, sides: map[string]*series{}}
			rows[key] = rd
			order = append(order, key)
		}
		s := rd.sides[r.Variant]
		if s == nil {
			s = &series{}
			rd.sides[r.Variant] = s
		}
		if len(r.Samples) > 0 {
			s.samples = append(s.samples, r.Samples...)
		} else {
			s.summaries = append(s.summaries, *r.Summary)
		}
	}
	if len(candidates) == 0 {
		return nil, fmt.Errorf("compare: no candidate variant besides the baseline %q", opts.Base)
	}

	method := opts.Verdicts.Method
	if method == "" {
		method = MethodPerfbot
	}
	cmp := &Comparison{Base: opts.Base, Candidates: candidates, Method: method}
	for _, key := range order {
		rd := rows[key]
		p := rd.proto
		row := Row{
			Benchmark: p.Benchmark,
			Group:     p.Group,
			Params:    p.Params,
			Unit:      p.Unit,
			Metric:    p.Metric,
			Better:    p.Better,
		}
		if s := rd.sides[opts.Base]; s != nil {
			c := summarize(s, opts.Confidence)
			row.Base = &c
		}
		for _, v := range candidates {
			cand := Candidate{Variant: v}
			s := rd.sides[v]
			switch {
			case s == nil && row.Base == nil:
				continue
			case s == nil:
				cand.Presence = Removed
			case row.Base == nil:
				cand.Cell = summarize(s, opts.Confidence)
				cand.Presence = Added
			default:
				cand.Cell = summarize(s, opts.Confidence)
				decide(row.Base, &cand, row.Unit, row.Better, opts)
			}
			row.Candidates = append(row.Candidates, cand)
		}
		cmp.Rows = append(cmp.Rows, row)
	}
	cmp.Summary = tally(cmp)
	cmp.Geomean = geomean(cmp)
	settle(cmp, opts)
	return cmp, nil
}

// summarize turns a variant's measurements into a Cell. Samples give the
// median and its distribution-free confidence interval, as benchstat does.
// Several summaries of one benchmark (one per round) are treated as samples
// of the round means; a single summary is kept as the tool gave it.
func summarize(s *series, confidence float64) Cell {
	values := s.samples
	if len(values) == 0 && len(s.summaries) > 1 {
		for _, sm := range s.summaries {
			values = append(values, sm.Mean)
		}
	}
	if len(values) > 0 {
		sorted := append([]float64(nil), values...)
		sample := benchmath.NewSample(sorted, &benchmath.DefaultThresholds)
		sum := benchmath.AssumeNothing.Summary(sample, confidence)
		c := Cell{Center: sum.Center, Lo: sum.Lo, Hi: sum.Hi, N: len(values), Samples: sample.Values, Rounds: values}
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
