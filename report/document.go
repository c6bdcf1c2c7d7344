package report

import (
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/provenance"
)

// The shapes a section of a report can take. Each has its own template.
const (
	// ShapeTable is one row per benchmark and parameter set, each
	// parameter in its own column, then the baseline and each candidate
	// ("Score ± Error" for tool summaries, as JMH prints them).
	ShapeTable = "table"
	// ShapeSweep pivots the rows of a benchmark that differ only in one
	// numeric parameter (threads, clients): the parameter down the rows,
	// variants across, and a ratio column such as "3.7x".
	ShapeSweep = "sweep"
	// ShapeCounters shows perf stat counters side by side: cycles,
	// instructions, IPC, context switches.
	ShapeCounters = "counters"
	// ShapeWorkloads groups YCSB-style results per workload: throughput
	// and latency percentiles of each operation.
	ShapeWorkloads = "workloads"
	// ShapeUnits is one table per benchmark group with the units as
	// columns (time, B/s, B/op, allocs/op side by side), each cell
	// "base → candidate" with its change and verdict. The one-unit tables
	// it sums up stay in Document.Details, with intervals, p and n.
	ShapeUnits = "units"
)

// Document is a comparison laid out for reading. Every template receives
// one; its strings are not escaped, so templates pass each through the
// venue's escaping function.
type Document struct {
	// Headline states the outcome in one line: the overall mark, the
	// largest changes and the commits.
	Headline Headline
	// State is the outcome a venue shows: success, failure or error.
	State string
	// Summary is the one-line verdict (SummaryLine).
	Summary string
	// Subject is the patch subject or the variants compared.
	Subject    string
	Base       string
	Candidates []string
	Tallies    []compare.Tally
	Sections   []*Section
	// Details are the one-unit tables that ShapeUnits sections sum up,
	// with intervals, p-values and counts: folded away where the venue
	// can fold, after the tables elsewhere.
	Details []*Section
	// ChangedSections hold only the changed lines, shown above the full
	// tables when those are collapsed.
	ChangedSections []*Section
	// Legend explains the abbreviations and verdict words the tables use.
	Legend   []Fact
	Failures []provenance.Failure
	Warnings []string
	// Provenance lists where the numbers came from, one fact each.
	Provenance []Fact
	// Charts name the chart images sent along (mail's cid: references).
	Charts []ChartRef
	// Short is true in the short renderings, which show changed rows only.
	Short bool
	// Omitted counts the rows this rendering left out; OmittedChanged
	// counts the changed ones among them (cut to fit a size limit).
	Omitted        int
	OmittedChanged int
	// Rows is the number of rows of the whole comparison.
	Rows int
	// Collapse asks for the full tables to be folded away (many rows).
	Collapse bool
	// Attached names the attachment that holds the full report, if any.
	Attached string
}

// Section is one table of a report.
type Section struct {
	// Shape is one of ShapeTable, ShapeSweep, ShapeCounters and
	// ShapeWorkloads.
	Shape string
	Group string
	// Benchmark is set for sweeps, whose rows all run one benchmark.
	Benchmark string
	Metric    string
	// Unit is the unit of every value, or empty when it differs per row
	// (counters, workloads), in which case Line.Unit names it.
	Unit string
	// Title describes the table in words: group, benchmark, metric, unit.
	Title string
	// Params are the parameter columns of a table, or the swept parameter
	// of a sweep.
	Params     []string
	Base       string
	Candidates []string
	Lines      []*Line
	// Geomean is the geometric-mean line of a table, if it has one.
	Geomean *Line
	// Units are the column units of a ShapeUnits section.
	Units []string
}

// foldLines is the length from which a table shows its changed lines and
// folds the unchanged ones away (where the venue can fold).
const foldLines = 12

// Long reports whether the section is long enough to fold its unchanged
// lines away and has both changed and unchanged ones.
func (s *Section) Long() bool {
	if len(s.Lines) < foldLines || (s.Shape != ShapeTable && s.Shape != ShapeUnits) {
		return false
	}
	changed := 0
	for _, l := range s.Lines {
		if l.Changed {
			changed++
		}
	}
	return changed > 0 && changed < len(s.Lines)
}

// Only is a copy of the section with its changed lines (changed true) or
// its unchanged ones; the geomean line goes with the unchanged ones.
func (s *Section) Only(changed bool) *Section {
	c := *s
	c.Lines = nil
	for _, l := range s.Lines {
		if l.Changed == changed {
			c.Lines = append(c.Lines, l)
		}
	}
	if changed {
		c.Geomean = nil
	}
	return &c
}

// Line is one row of a section.
type Line struct {
	// Name is the benchmark (table), the swept value (sweep), the counter
	// (counters) or the operation (workloads).
	Name string
	// Workload is the workload of a workloads line; First marks the first
	// line of its workload.
	Workload string
	First    bool
	// Params are the values of Section.Params, "" where a row lacks one.
	Params []string
	// Metric and Unit name what a counters or workloads line measures.
	Metric string
	Unit   string
	// Base is the formatted baseline value, "" when the baseline lacks it.
	Base  string
	Cells []Cell
	// Units are the cells of a ShapeUnits line, one per Section.Units.
	Units []UnitCell
	// Changed is true when a candidate got better or worse, or only one
	// side has the row.
	Changed bool
	// row is the comparison row behind the line, for charts.
	row *compare.Row
}

// Cell is one candidate's value on a line.
type Cell struct {
	Variant string
	// Value is the formatted centre with its interval or error.
	Value string
	// Delta is the change in percent ("+12.86%"), "" when not computable.
	Delta string
	// Ratio is the speed-up in the better direction ("3.7x").
	Ratio string
	// Stat is the test's p-value and counts ("p=0.008 n=5").
	Stat string
	// Verdict is "better", "worse", "same", "noisy", "added" or "removed";
	// empty only on geomean lines.
	Verdict string
}

// UnitCell is one unit's column of a ShapeUnits line, for the one
// candidate: baseline and candidate value, change and verdict.
type UnitCell struct {
	Base    string
	Value   string
	Delta   string
	Verdict string
	// Stat is the test's p-value and counts, as Cell.Stat.
	Stat string
}

// Fact is one line of provenance.
type Fact struct {
	Label string
	Value string
	// Code marks a value best shown as code: commands, commits, files.
	Code bool
}

// ChartRef names a chart image sent with the report.
type ChartRef struct {
	// Name is the attachment's file name, also its Content-ID in mail.
	Name  string
	Title string
}

// countChanged counts the changed lines of the document.
func (d *Document) countChanged() int {
	n := 0
	for _, s := range d.Sections {
		for _, l := range s.Lines {
			if l.Changed {
				n++
			}
		}
	}
	return n
}

// Shown counts the lines the document shows.
func (d *Document) Shown() int {
	n := 0
	for _, s := range d.Sections {
		n += len(s.Lines)
	}
	return n
}
