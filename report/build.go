package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/perf/benchunit"

	"github.com/perfbot/perfbot/compare"
)

// DefaultSweepParams returns the parameters whose rows pivot into a sweep
// when they are the only parameter that varies: concurrency, as in the
// HBase WAL thread sweep.
func DefaultSweepParams() []string {
	return []string{"threads", "thread", "threadcount", "clients", "client", "concurrency",
		"connections", "conns", "jobs", "workers", "goroutines", "procs", "gomaxprocs", "cpus", "nodes"}
}

// minSweep is the fewest distinct values of a swept parameter that make a
// sweep; fewer stay rows of an ordinary table.
const minSweep = 3

// perfEvents are the counters perf stat prints; rows measuring them form
// a counters section.
var perfEvents = map[string]bool{
	"task-clock": true, "cpu-clock": true, "context-switches": true, "cs": true, "cpu-migrations": true,
	"migrations": true, "page-faults": true, "faults": true, "minor-faults": true, "major-faults": true,
	"cycles": true, "instructions": true, "branches": true, "branch-misses": true,
	"stalled-cycles-frontend": true, "stalled-cycles-backend": true, "cache-references": true,
	"cache-misses": true, "L1-dcache-loads": true, "L1-dcache-load-misses": true, "LLC-loads": true,
	"LLC-load-misses": true, "dTLB-loads": true, "dTLB-load-misses": true, "ref-cycles": true, "bus-cycles": true,
	"seconds time elapsed": true, "seconds user": true, "seconds sys": true,
}

// isCounter reports whether a row is a perf stat counter.
func isCounter(row *compare.Row) bool {
	name := row.Benchmark
	if i := strings.IndexByte(name, ':'); i > 0 {
		name = name[:i] // cycles:u
	}
	return perfEvents[name] || perfEvents[strings.TrimPrefix(strings.TrimPrefix(name, "cpu_core/"), "cpu_atom/")]
}

// isWorkload reports whether a row is one of a YCSB-style workload suite.
func isWorkload(row *compare.Row) bool {
	_, ok := row.Params.Get("workload")
	return ok
}

// sweepParam returns the name and numeric value of the row's parameter
// that a sweep would pivot on.
func sweepParam(row *compare.Row, names []string) (string, float64, bool) {
	for _, p := range row.Params {
		for _, n := range names {
			if strings.EqualFold(p.Name, n) {
				if v, err := strconv.ParseFloat(p.Value, 64); err == nil {
					return p.Name, v, true
				}
			}
		}
	}
	return "", 0, false
}

// build lays a comparison out as a Document: rows sorted into sections by
// shape, every value formatted, provenance listed.
func build(c *compare.Comparison, opts Options) *Document {
	doc := &Document{
		Summary:    SummaryLine(c),
		Subject:    patchSubject(c),
		Base:       c.Base,
		Candidates: c.Candidates,
		Tallies:    c.Summary,
		Failures:   c.Failures,
		Warnings:   c.Warnings,
		Provenance: provenanceFacts(&c.Provenance),
		Rows:       len(c.Rows),
	}
	names := opts.SweepParams
	if names == nil {
		names = DefaultSweepParams()
	}

	// First pass: which rows make sweeps.
	type sweepAcc struct {
		param  string
		values map[float64]bool
		rows   []int
	}
	sweeps := map[string]*sweepAcc{}
	sweepOf := make([]string, len(c.Rows))
	for i := range c.Rows {
		row := &c.Rows[i]
		if isCounter(row) || isWorkload(row) {
			continue
		}
		name, v, ok := sweepParam(row, names)
		if !ok {
			continue
		}
		key := strings.Join([]string{row.Group, row.Benchmark, row.Metric, row.Unit, name, row.Params.Without(name).String()}, "\x00")
		acc := sweeps[key]
		if acc == nil {
			acc = &sweepAcc{param: name, values: map[float64]bool{}}
			sweeps[key] = acc
		}
		if acc.values[v] {
			continue // a duplicate value: not a clean sweep row
		}
		acc.values[v] = true
		acc.rows = append(acc.rows, i)
		sweepOf[i] = key
	}
	for key, acc := range sweeps {
		if len(acc.values) < minSweep {
			for _, i := range acc.rows {
				sweepOf[i] = ""
			}
			delete(sweeps, key)
		}
	}

	// Second pass: sections in the order their first row appears.
	index := map[string]*Section{}
	members := map[*Section][]int{}
	for i := range c.Rows {
		row := &c.Rows[i]
		var key string
		var s *Section
		switch {
		case isCounter(row):
			key = "counters\x00" + row.Group
			s = &Section{Shape: ShapeCounters, Group: row.Group}
		case isWorkload(row):
			key = "workloads\x00" + row.Group
			s = &Section{Shape: ShapeWorkloads, Group: row.Group}
		case sweepOf[i] != "":
			key = "sweep\x00" + sweepOf[i]
			s = &Section{Shape: ShapeSweep, Group: row.Group, Benchmark: row.Benchmark, Metric: row.Metric,
				Unit: row.Unit, Params: []string{sweeps[sweepOf[i]].param}}
		default:
			unit, _ := tidyUnit(row.Unit)
			key = "table\x00" + row.Group + "\x00" + row.Metric + "\x00" + unit
			s = &Section{Shape: ShapeTable, Group: row.Group, Metric: row.Metric, Unit: unit}
		}
		if old := index[key]; old != nil {
			s = old
		} else {
			s.Base, s.Candidates = c.Base, c.Candidates
			index[key] = s
			doc.Sections = append(doc.Sections, s)
		}
		members[s] = append(members[s], i)
	}
	filled := make(map[*Section]bool, len(doc.Sections))
	fill := func(s *Section) {
		if filled[s] {
			return
		}
		filled[s] = true
		rows := members[s]
		switch s.Shape {
		case ShapeTable:
			fillTable(s, c, rows)
		case ShapeSweep:
			fillSweep(s, c, rows)
		case ShapeCounters:
			fillCounters(s, c, rows)
		case ShapeWorkloads:
			fillWorkloads(s, c, rows)
		}
	}
	unitTables(doc, c, !opts.noDetails, fill)
	for _, s := range doc.Sections {
		fill(s)
	}
	doc.Headline = headlineOf(c)
	doc.State = string(State(c))
	doc.Legend = legend(doc)
	return doc
}

// lastCandidateOf returns the row's last candidate of variant v, or nil. A
// row has a handful of candidates: a scan is cheaper than a map per row.
func lastCandidateOf(row *compare.Row, v string) *compare.Candidate {
	for i := len(row.Candidates) - 1; i >= 0; i-- {
		if row.Candidates[i].Variant == v {
			return &row.Candidates[i]
		}
	}
	return nil
}

// line formats a row's values; name and params are filled by the caller.
// Under benchstat's method the cells keep benchstat's layout, without the
// minimum detectable effect.
func line(row *compare.Row, c *compare.Comparison, unit string, factor float64) *Line {
	candidates := c.Candidates
	showMDE := c.Method != compare.MethodBenchstat
	ns := newNumberStyle(row, unit, factor)
	l := &Line{row: row}
	benchstatStyle := ns.sampled
	if row.Base != nil {
		l.Base = ns.cell(row.Base)
	}
	for _, v := range candidates {
		cand := lastCandidateOf(row, v)
		if cand == nil {
			l.Cells = append(l.Cells, Cell{Variant: v})
			continue
		}
		cell := Cell{Variant: v, Verdict: verdictOf(cand)}
		if cand.Presence != compare.Removed {
			cell.Value = ns.cell(&cand.Cell)
		}
		cell.Delta = formatDelta(row.Base, cand, row.Unit, benchstatStyle)
		if c.Method == compare.MethodBenchstat && row.Base != nil && row.Base.Center == 0 && cand.Presence == compare.Both && cand.Center != 0 && cell.Delta != "~" {
			cell.Delta = "?" // benchstat's own mark for a change from zero
		}
		cell.Ratio = formatRatio(row.Base, cand, row.Better)
		cell.Stat = formatStat(row.Base, cand, showMDE)
		switch cell.Verdict {
		case "better", "worse", "added", "removed":
			l.Changed = true
		}
		l.Cells = append(l.Cells, cell)
	}
	return l
}

// fillTable gives each parameter its own column, in the order parameters
// first appear, and closes with the geomean line when there is one.
func fillTable(s *Section, c *compare.Comparison, rows []int) {
	seen := map[string]bool{}
	anySampled := false
	for _, i := range rows {
		for _, p := range c.Rows[i].Params {
			if !seen[p.Name] {
				seen[p.Name] = true
				s.Params = append(s.Params, p.Name)
			}
		}
		anySampled = anySampled || sampled(&c.Rows[i])
	}
	rawUnit := ""
	if len(rows) > 0 {
		rawUnit = c.Rows[rows[0]].Unit
	}
	if !anySampled {
		s.Unit = rawUnit // tool summaries keep the tool's unit and digits
	}
	for _, i := range rows {
		row := &c.Rows[i]
		factor := 1.0
		if anySampled {
			_, factor = tidyUnit(row.Unit)
		}
		l := line(row, c, s.Unit, factor)
		l.Name = row.Benchmark
		for _, name := range s.Params {
			v, _ := row.Params.Get(name)
			l.Params = append(l.Params, v)
		}
		s.Lines = append(s.Lines, l)
	}
	s.Title = title(s.Group, "", metricUnit(s.Metric, s.Unit))
	s.Geomean = geomeanLine(c, s, anySampled)
}

func geomeanLine(c *compare.Comparison, s *Section, anySampled bool) *Line {
	if len(s.Lines) < 2 {
		return nil
	}
	for _, g := range c.Geomean.Units {
		unit, factor := tidyUnit(g.Unit)
		if !anySampled {
			unit, factor = g.Unit, 1
		}
		if g.Group != s.Group || g.Metric != s.Metric || unit != s.Unit {
			continue
		}
		ns := numberStyle{sampled: anySampled, factor: factor}
		if anySampled {
			vals := []float64{g.Base * factor}
			for _, gc := range g.Candidates {
				vals = append(vals, gc.Value*factor)
			}
			ns.scaler = benchunit.CommonScale(vals, benchunit.ClassOf(unit))
		}
		l := &Line{Name: "geomean", Base: ns.plain(g.Base), Params: make([]string, len(s.Params))}
		for _, gc := range g.Candidates {
			delta := fmt.Sprintf("%+.2f%%", gc.DeltaPct)
			if gc.Ratio >= 10 && !anySampled {
				delta = plainNumber(math.Round(gc.Ratio*10)/10) + "x"
			}
			l.Cells = append(l.Cells, Cell{Variant: gc.Variant, Value: ns.plain(gc.Value), Delta: delta})
		}
		return l
	}
	return nil
}

// fillSweep puts the swept parameter down the rows, in numeric order.
func fillSweep(s *Section, c *compare.Comparison, rows []int) {
	param := s.Params[0]
	value := func(i int) float64 {
		v, _ := c.Rows[i].Params.Get(param)
		f, _ := strconv.ParseFloat(v, 64)
		return f
	}
	rows = slices.Clone(rows)
	slices.SortStableFunc(rows, func(a, b int) int { return cmp.Compare(value(a), value(b)) })
	for _, i := range rows {
		row := &c.Rows[i]
		l := line(row, c, row.Unit, 1)
		l.Name, _ = row.Params.Get(param)
		l.Params = []string{l.Name}
		s.Lines = append(s.Lines, l)
	}
	first := &c.Rows[rows[0]]
	name := s.Benchmark
	if rest := first.Params.Without(param); len(rest) > 0 {
		name += " " + rest.String()
	}
	s.Title = title(s.Group, name, metricUnit(s.Metric, s.Unit))
}

// fillCounters lists each counter with its own unit.
func fillCounters(s *Section, c *compare.Comparison, rows []int) {
	for _, i := range rows {
		row := &c.Rows[i]
		l := line(row, c, row.Unit, 1)
		l.Name = row.Benchmark
		if len(row.Params) > 0 {
			l.Name += " " + row.Params.String()
		}
		l.Metric, l.Unit = row.Metric, row.Unit
		if l.Unit == "count" {
			l.Unit = "" // a plain count needs no unit
		}
		if row.Metric != "" {
			l.Name = row.Metric // "IPC" of the instructions row
		}
		s.Lines = append(s.Lines, l)
	}
	s.Title = title(s.Group, "perf stat", "")
}

// fillWorkloads groups lines per workload, workloads in the order they
// first appear, lines within a workload in their own order.
func fillWorkloads(s *Section, c *compare.Comparison, rows []int) {
	var order []string
	per := map[string][]int{}
	for _, i := range rows {
		w, _ := c.Rows[i].Params.Get("workload")
		if _, ok := per[w]; !ok {
			order = append(order, w)
		}
		per[w] = append(per[w], i)
	}
	constant := constantParams(c, rows)
	for _, w := range order {
		for k, i := range per[w] {
			row := &c.Rows[i]
			l := line(row, c, row.Unit, 1)
			l.Workload, l.First = w, k == 0
			l.Name = row.Benchmark
			for _, p := range row.Params {
				if p.Name != "workload" && !constant[p.Name] {
					l.Name += " " + p.Name + "=" + p.Value
				}
			}
			l.Metric, l.Unit = row.Metric, row.Unit
			s.Lines = append(s.Lines, l)
		}
	}
	s.Title = title(s.Group, "workloads", constantString(c, rows, constant))
}

// constantParams names the parameters every row has with the same value;
// a section names them once in its title instead of on every line.
func constantParams(c *compare.Comparison, rows []int) map[string]bool {
	out := map[string]bool{}
	if len(rows) < 2 {
		return out
	}
	for _, p := range c.Rows[rows[0]].Params {
		same := true
		for _, i := range rows[1:] {
			if v, ok := c.Rows[i].Params.Get(p.Name); !ok || v != p.Value {
				same = false
				break
			}
		}
		if same && p.Name != "workload" {
			out[p.Name] = true
		}
	}
	return out
}

func constantString(c *compare.Comparison, rows []int, constant map[string]bool) string {
	if len(rows) == 0 {
		return ""
	}
	var parts []string
	for _, p := range c.Rows[rows[0]].Params {
		if constant[p.Name] {
			parts = append(parts, p.Name+"="+p.Value)
		}
	}
	return strings.Join(parts, " ")
}

func title(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, " · ")
}
