package report

import (
	"fmt"
	"math"
	"strings"

	"golang.org/x/perf/benchmath"
	"golang.org/x/perf/benchunit"

	"github.com/perfbot/perfbot/compare"
)

// table is one unit's rows of a comparison, in display form: every renderer
// formats numbers the same way and differs only in markup.
type table struct {
	Group   string
	Unit    string // display unit, tidied as benchstat does ("sec/op")
	Metric  string
	Base    string
	Columns []string
	Rows    []tableRow
	Geomean *tableRow
}

type tableRow struct {
	Name  string
	Base  string // "1.234µ ± 2%"
	Cells []tableCell
}

type tableCell struct {
	Value   string // "617.0n ± 1%"
	Delta   string // "-50.00%" or "~"
	Stat    string // "p=0.000 n=10"
	Verdict compare.Verdict
	// Presence is "added" or "removed" when one side lacks the row.
	Presence compare.Presence
}

// tables splits a comparison into one table per group and unit, in the order
// rows first appear, with values scaled per row as benchstat does.
func tables(cmp *compare.Comparison) []*table {
	var out []*table
	index := map[string]*table{}
	for i := range cmp.Rows {
		row := &cmp.Rows[i]
		unit, factor := tidyUnit(row.Unit)
		key := row.Group + "\x00" + row.Metric + "\x00" + unit
		t := index[key]
		if t == nil {
			t = &table{Group: row.Group, Unit: unit, Metric: row.Metric, Base: cmp.Base, Columns: cmp.Candidates}
			index[key] = t
			out = append(out, t)
		}
		t.Rows = append(t.Rows, formatRow(row, cmp.Candidates, unit, factor))
	}
	for _, t := range out {
		t.Geomean = geomeanRow(cmp, t)
	}
	return out
}

// tidyUnit returns the unit benchstat shows for unit ("sec/op" for
// "ns/op") and the factor that converts values into it.
func tidyUnit(unit string) (string, float64) {
	factor, tidied := benchunit.Tidy(1, unit)
	return tidied, factor
}

func formatRow(row *compare.Row, candidates []string, unit string, factor float64) tableRow {
	var centers []float64
	if row.Base != nil {
		centers = append(centers, scaledSummary(row.Base, factor).Center)
	}
	for i := range row.Candidates {
		if c := &row.Candidates[i]; c.Presence != compare.Removed {
			centers = append(centers, scaledSummary(&c.Cell, factor).Center)
		}
	}
	scaler := benchunit.CommonScale(centers, benchunit.ClassOf(unit))
	tr := tableRow{Name: rowName(row)}
	if row.Base != nil {
		tr.Base = formatCell(row.Base, scaler, factor)
	}
	byVariant := map[string]*compare.Candidate{}
	for i := range row.Candidates {
		byVariant[row.Candidates[i].Variant] = &row.Candidates[i]
	}
	for _, v := range candidates {
		c := byVariant[v]
		if c == nil {
			tr.Cells = append(tr.Cells, tableCell{})
			continue
		}
		tc := tableCell{Presence: c.Presence, Verdict: c.Verdict}
		if c.Presence != compare.Removed {
			tc.Value = formatCell(&c.Cell, scaler, factor)
		}
		if c.Presence == compare.Both {
			tc.Delta = formatDelta(row.Base.Center, c)
			tc.Stat = formatStat(row.Base, c)
		}
		tr.Cells = append(tr.Cells, tc)
	}
	return tr
}

// rowName is the benchmark with its parameters, as Go names sub-benchmarks.
func rowName(row *compare.Row) string {
	if len(row.Params) == 0 {
		return row.Benchmark
	}
	return row.Benchmark + "/" + row.Params.String()
}

// scaledSummary is a cell's summary in the display unit. With samples it
// is recomputed from the scaled samples, as benchstat computes it from
// tidied values, so that the printed digits agree with benchstat's even
// where scaling and taking the median do not commute in floating point.
func scaledSummary(c *compare.Cell, factor float64) benchmath.Summary {
	if len(c.Samples) > 0 && factor != 1 {
		vals := make([]float64, len(c.Samples))
		for i, v := range c.Samples {
			vals[i] = v * factor
		}
		return benchmath.AssumeNothing.Summary(benchmath.NewSample(vals, &benchmath.DefaultThresholds), 0.95)
	}
	return benchmath.Summary{Center: c.Center * factor, Lo: c.Lo * factor, Hi: c.Hi * factor}
}

func formatCell(c *compare.Cell, scaler benchunit.Scaler, factor float64) string {
	s := scaledSummary(c, factor)
	v := scaler.Format(s.Center)
	if c.N <= 1 && !c.Summarized {
		return v
	}
	return v + " ± " + s.PctRangeString()
}

// formatDelta is benchstat's delta: "~" when the change is not significant.
func formatDelta(base float64, c *compare.Candidate) string {
	if !c.Significant {
		return "~"
	}
	if base == c.Center {
		return "0.00%"
	}
	if base == 0 {
		return "?"
	}
	return fmt.Sprintf("%+.2f%%", c.DeltaPct)
}

func formatStat(base *compare.Cell, c *compare.Candidate) string {
	var b strings.Builder
	if !math.IsNaN(c.P) && c.P != 0 {
		fmt.Fprintf(&b, "p=%0.3f ", c.P)
	} else if math.IsNaN(c.P) {
		b.WriteString("p=? ")
	}
	if base.N == c.N {
		fmt.Fprintf(&b, "n=%d", c.N)
	} else {
		fmt.Fprintf(&b, "n=%d+%d", base.N, c.N)
	}
	return b.String()
}

func geomeanRow(cmp *compare.Comparison, t *table) *tableRow {
	for _, g := range cmp.Geomean.Units {
		unit, factor := tidyUnit(g.Unit)
		if g.Group != t.Group || g.Metric != t.Metric || unit != t.Unit {
			continue
		}
		vals := []float64{g.Base * factor}
		for _, c := range g.Candidates {
			vals = append(vals, c.Value*factor)
		}
		scaler := benchunit.CommonScale(vals, benchunit.ClassOf(unit))
		tr := &tableRow{Name: "geomean", Base: scaler.Format(g.Base * factor)}
		for _, c := range g.Candidates {
			tr.Cells = append(tr.Cells, tableCell{Value: scaler.Format(c.Value * factor), Delta: fmt.Sprintf("%+.2f%%", c.DeltaPct)})
		}
		return tr
	}
	return nil
}
