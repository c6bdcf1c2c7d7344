package report

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/perfbot/perfbot/compare"
)

// Text writes cmp as plain text: a summary line, then one table per package
// and unit laid out as benchstat lays them out (centre ± interval, the
// change or "~" when not significant, the p-value and sample counts), with a
// verdict column, then failures and provenance.
func Text(w io.Writer, cmp *compare.Comparison) error {
	var b strings.Builder
	b.WriteString(SummaryLine(cmp))
	b.WriteString("\n")
	for _, t := range tables(cmp) {
		b.WriteString("\n")
		if t.Group != "" {
			fmt.Fprintf(&b, "pkg: %s\n", t.Group)
		}
		writeTextTable(&b, t)
	}
	writeTextFailures(&b, cmp)
	if warn := cmp.Warnings; len(warn) > 0 {
		b.WriteString("\nwarnings:\n")
		for _, w := range warn {
			b.WriteString("  " + w + "\n")
		}
	}
	if lines := provenanceLines(&cmp.Provenance); len(lines) > 0 {
		b.WriteString("\nprovenance:\n")
		for _, l := range lines {
			b.WriteString("  " + l + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeTextTable(b *strings.Builder, t *table) {
	unit := t.Unit
	if t.Metric != "" {
		unit = t.Metric + " " + unit
	}
	header1 := []string{"", t.Base}
	header2 := []string{"", unit}
	for _, c := range t.Columns {
		header1 = append(header1, c, "", "", "")
		header2 = append(header2, unit, "vs "+t.Base, "", "")
	}
	grid := [][]string{header1, header2}
	rows := t.Rows
	if t.Geomean != nil && len(t.Rows) > 1 {
		rows = append(rows[:len(rows):len(rows)], *t.Geomean)
	}
	for _, r := range rows {
		line := []string{r.Name, r.Base}
		for _, c := range r.Cells {
			switch c.Presence {
			case compare.Added:
				line = append(line, c.Value, "added", "", "")
			case compare.Removed:
				line = append(line, "", "removed", "", "")
			default:
				stat := ""
				if c.Stat != "" {
					stat = "(" + c.Stat + ")"
				}
				line = append(line, c.Value, c.Delta, stat, string(c.Verdict))
			}
		}
		grid = append(grid, line)
	}
	writeGrid(b, grid)
}

// writeGrid aligns columns: the first left-aligned, numbers right-aligned,
// the p-value and verdict columns left-aligned.
func writeGrid(b *strings.Builder, grid [][]string) {
	var widths []int
	for _, row := range grid {
		for i, cell := range row {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], utf8.RuneCountInString(cell))
		}
	}
	for _, row := range grid {
		var line strings.Builder
		for i, cell := range row {
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(cell))
			if i > 0 {
				line.WriteString("  ")
			}
			leftAligned := i == 0 || (i >= 2 && (i-2)%4 >= 2)
			if leftAligned {
				line.WriteString(cell + pad)
			} else {
				line.WriteString(pad + cell)
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " "))
		b.WriteString("\n")
	}
}

func writeTextFailures(b *strings.Builder, cmp *compare.Comparison) {
	for _, f := range cmp.Failures {
		fmt.Fprintf(b, "\nFAILED: %s: %s: %s\n", f.Variant, f.Stage, f.Message)
		if f.Limit != "" {
			fmt.Fprintf(b, "  ended by the %s limit\n", f.Limit)
		}
		if f.LogTail != "" {
			for _, l := range strings.Split(tail(f.LogTail, 20), "\n") {
				b.WriteString("  | " + l + "\n")
			}
		}
	}
}
