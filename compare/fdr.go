package compare

import (
	"math"
	"math/rand/v2"

	"github.com/perfbot/perfbot/stats"
)

// settle finishes a comparison after every row has its per-row test:
// under MethodPerfbot it holds each candidate's rows to a false-discovery
// rate (VerdictOptions.FDR, by default Alpha; Benjamini-Hochberg) and applies noise learned from
// history; under either method it recounts the verdicts and puts bootstrap
// intervals on the geomeans.
func settle(cmp *Comparison, opts Options, memo *memo) {
	if opts.Verdicts.Method != MethodBenchstat {
		for ci := range cmp.Candidates {
			controlFDR(cmp, ci, opts, memo)
		}
		noteRunNoise(cmp)
	}
	cmp.Summary = tally(cmp)
	geomeanIntervals(cmp, opts)
}

// controlFDR applies Benjamini-Hochberg to candidate ci's rows. A row whose
// raw p-value is at most q·k/m (m tested rows, k the largest rank whose
// p-value passes its own bound) is significant; Alpha is set to that
// cutoff, so that Significant stays "P <= Alpha". When no row passes, Alpha
// is q/m, what the smallest p-value would have needed.
func controlFDR(cmp *Comparison, ci int, opts Options, memo *memo) {
	type ref struct{ row, cand int }
	var refs []ref
	var ps []float64
	for ri := range cmp.Rows {
		row := &cmp.Rows[ri]
		for k := range row.Candidates {
			c := &row.Candidates[k]
			if c.Variant != cmp.Candidates[ci] || c.Presence != Both || row.Base == nil || c.Test == "" || c.Test == TestTolerance || math.IsNaN(c.P) {
				continue
			}
			refs = append(refs, ref{ri, k})
			ps = append(ps, c.P)
		}
	}
	if len(ps) == 0 {
		return
	}
	q := opts.Verdicts.FDR
	if q == 0 {
		q = opts.Alpha
	}
	adj := stats.BenjaminiHochberg(ps)
	cutoff := q / float64(len(ps))
	for i, a := range adj {
		if a <= q && ps[i] > cutoff {
			cutoff = ps[i]
		}
	}
	for _, r := range refs {
		row := &cmp.Rows[r.row]
		c := &row.Candidates[r.cand]
		c.Alpha = cutoff
		var noise *stats.Noise
		if opts.Verdicts.History != nil {
			if n, ok := opts.Verdicts.History(row); ok {
				noise = &n
			}
		}
		judge(row.Base, c, row.Better, opts, noise, memo)
	}
}

// geomeanIntervals puts a percentile bootstrap interval, at the comparison's
// confidence, on each geomean's change, over the same rows geomean used.
func geomeanIntervals(cmp *Comparison, opts Options) {
	iters := opts.Verdicts.BootstrapIterations
	if iters < 0 {
		return
	}
	if iters == 0 {
		iters = 2000
	}
	// One pass over the rows gathers every unit's pairs, so the cost grows
	// with the rows, not with rows times units.
	unitOf := map[[3]string]int{}
	for ui, gu := range cmp.Geomean.Units {
		unitOf[[3]string{gu.Group, gu.Metric, gu.Unit}] = ui
	}
	candOf := map[string]int{}
	for i, v := range cmp.Candidates {
		candOf[v] = i
	}
	pairs := make([][][]stats.RatioPair, len(cmp.Geomean.Units))
	for ui, gu := range cmp.Geomean.Units {
		pairs[ui] = make([][]stats.RatioPair, len(gu.Candidates))
	}
	for ri := range cmp.Rows {
		row := &cmp.Rows[ri]
		ui, ok := unitOf[[3]string{row.Group, row.Metric, row.Unit}]
		if !ok || !inGeomean(row, len(cmp.Candidates)) {
			continue
		}
		for k := range row.Candidates {
			c := &row.Candidates[k]
			if gi, ok := candOf[c.Variant]; ok && gi < len(pairs[ui]) {
				pairs[ui][gi] = append(pairs[ui][gi], stats.RatioPair{Base: values(row.Base), Cand: values(&c.Cell)})
			}
		}
	}
	total := 0
	for _, ps := range pairs {
		for _, p := range ps {
			total += len(p)
		}
	}
	for ui := range cmp.Geomean.Units {
		gu := &cmp.Geomean.Units[ui]
		for gi := range gu.Candidates {
			gc := &gu.Candidates[gi]
			rng := rand.New(rand.NewPCG(opts.Verdicts.Seed, uint64(ui)<<32|uint64(gi)))
			iv, err := stats.GeomeanRatioOf(pairs[ui][gi], total, iters, opts.Confidence, rng)
			if err != nil {
				continue
			}
			lo, hi := (iv.Lo-1)*100, (iv.Hi-1)*100
			gc.LoPct, gc.HiPct = &lo, &hi
		}
	}
}

// inGeomean repeats geomean's choice of rows: the baseline and every
// candidate measured the row, with positive centres.
func inGeomean(row *Row, candidates int) bool {
	if row.Base == nil || row.Base.Center <= 0 || len(row.Candidates) != candidates {
		return false
	}
	for _, c := range row.Candidates {
		if c.Presence != Both || c.Center <= 0 {
			return false
		}
	}
	return true
}

// values are a cell's samples, or its centre alone for a summary.
func values(c *Cell) []float64 {
	if len(c.Samples) > 0 {
		return c.Samples
	}
	return []float64{c.Center}
}
