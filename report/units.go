package report

import (
	"math"
	"slices"
	"strings"

	"golang.org/x/perf/benchunit"

	"github.com/perfbot/perfbot/compare"
)

// unitTables sums up the one-unit tables of each benchmark group in one
// ShapeUnits table with the units as columns, when the comparison has one
// candidate and the group's tables are Go benchmarks measured as samples
// with the same parameter columns. The one-unit tables move to
// doc.Details when keep is true. fill fills a section's lines: the tables
// of a group are filled and summed up together, so that a large
// comparison's one-unit tables need not all exist at once.
func unitTables(doc *Document, c *compare.Comparison, keep bool, fill func(*Section)) {
	if len(c.Candidates) != 1 || c.Method == compare.MethodBenchstat {
		return // under benchstat's method the layout stays benchstat's
	}
	byGroup := map[string][]*Section{}
	var groups []string
	for _, s := range doc.Sections {
		if s.Shape != ShapeTable {
			continue
		}
		if _, ok := byGroup[s.Group]; !ok {
			groups = append(groups, s.Group)
		}
		byGroup[s.Group] = append(byGroup[s.Group], s)
	}
	replaced := map[*Section]*Section{} // first table of a group -> its units table
	drop := map[*Section]bool{}
	for _, g := range groups {
		var ss []*Section
		for _, s := range byGroup[g] {
			fill(s)
			if sampledSection(s) {
				ss = append(ss, s)
			}
		}
		if len(ss) < 2 {
			continue
		}
		same := true
		for _, s := range ss[1:] {
			same = same && slices.Equal(s.Params, ss[0].Params)
		}
		if !same {
			continue
		}
		replaced[ss[0]] = unitsSection(ss, c)
		for _, s := range ss {
			drop[s] = true
			if !keep {
				s.Lines = nil // summed up and not shown
			}
		}
	}
	if len(replaced) == 0 {
		return
	}
	var out []*Section
	for _, s := range doc.Sections {
		if u := replaced[s]; u != nil {
			out = append(out, u)
		}
		if drop[s] {
			if keep {
				doc.Details = append(doc.Details, s)
			}
			continue
		}
		out = append(out, s)
	}
	doc.Sections = out
}

// sampledSection reports whether every line of a table was measured as
// samples in a Go benchmark unit.
func sampledSection(s *Section) bool {
	for _, l := range s.Lines {
		if l.row == nil || !sampled(l.row) {
			return false
		}
	}
	return len(s.Lines) > 0
}

// unitsSection lays the tables of one group side by side: a line per
// benchmark and parameter set, a column per unit.
func unitsSection(ss []*Section, c *compare.Comparison) *Section {
	u := &Section{Shape: ShapeUnits, Group: ss[0].Group, Params: ss[0].Params, Base: c.Base,
		Candidates: c.Candidates, Title: shortGroup(ss[0].Group)}
	index := map[string]*Line{}
	for k, s := range ss {
		u.Units = append(u.Units, s.Unit)
		for _, l := range s.Lines {
			key := l.Name + "\x00" + strings.Join(l.Params, "\x00")
			ul := index[key]
			if ul == nil {
				ul = &Line{Name: l.Name, Params: l.Params, row: l.row, Units: make([]UnitCell, len(ss))}
				index[key] = ul
				u.Lines = append(u.Lines, ul)
			}
			ul.Units[k] = unitCell(l, s.Unit)
			ul.Changed = ul.Changed || l.Changed
		}
	}
	return u
}

// unitCell is a line's one candidate as a units-table cell: the centres
// without their intervals (the details table has those).
func unitCell(l *Line, unit string) UnitCell {
	row := l.row
	_, factor := tidyUnit(row.Unit)
	centre := func(cell *compare.Cell) string {
		v := scaledSummary(cell, factor).Center
		switch {
		case v == math.Trunc(v) && math.Abs(v) < 1e4:
			return plainNumber(v) // 0, 8 B/op, 1 alloc
		case extreme(v):
			return scientific(v)
		}
		return benchunit.CommonScale([]float64{v}, benchunit.ClassOf(unit)).Format(v)
	}
	var uc UnitCell
	if row.Base != nil {
		uc.Base = centre(row.Base)
	}
	if len(l.Cells) > 0 {
		cell := l.Cells[0]
		uc.Delta, uc.Verdict, uc.Stat = cell.Delta, cell.Verdict, cell.Stat
		if cand := candidateOf(row, cell.Variant); cand != nil && cand.Presence != compare.Removed {
			uc.Value = centre(&cand.Cell)
		}
	}
	return uc
}

// shortGroup names a benchmark group briefly: the last two elements of a
// Go import path ("examples/wal" for github.com/perfbot/perfbot/examples/wal),
// other groups as they are.
func shortGroup(g string) string {
	parts := strings.Split(g, "/")
	if len(parts) < 3 || !strings.Contains(parts[0], ".") {
		return g
	}
	return strings.Join(parts[len(parts)-2:], "/")
}
