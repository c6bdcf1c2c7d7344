package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/perfbot/perfbot/compare"
)

// JIRA writes cmp as JIRA wiki markup: ||header|| tables, the change coloured
// by verdict, log tails in {noformat} blocks.
func JIRA(w io.Writer, cmp *compare.Comparison) error {
	var b strings.Builder
	fmt.Fprintf(&b, "h3. perfbot: %s\n\n", JIRAEscape(SummaryLine(cmp)))
	for _, t := range tables(cmp) {
		writeJIRATable(&b, t)
	}
	for _, f := range cmp.Failures {
		fmt.Fprintf(&b, "*FAILED: %s %s*: %s\n", JIRAEscape(f.Variant), JIRAEscape(f.Stage), JIRAEscape(f.Message))
		if f.LogTail != "" {
			// {noformat} ends at the next {noformat}; keep the log from
			// closing it early.
			log := strings.ReplaceAll(tail(f.LogTail, 20), "{noformat}", "{ noformat}")
			fmt.Fprintf(&b, "{noformat}\n%s\n{noformat}\n", log)
		}
	}
	for _, w := range cmp.Warnings {
		fmt.Fprintf(&b, "_warning: %s_\n", JIRAEscape(w))
	}
	if lines := provenanceLines(&cmp.Provenance); len(lines) > 0 {
		b.WriteString("\nProvenance:\n")
		for _, l := range lines {
			fmt.Fprintf(&b, "* %s\n", JIRAEscape(l))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeJIRATable(b *strings.Builder, t *table) {
	unit := t.Unit
	if t.Metric != "" {
		unit = t.Metric + " " + unit
	}
	if t.Group != "" {
		fmt.Fprintf(b, "*%s* ", JIRAEscape(t.Group))
	}
	fmt.Fprintf(b, "%s\n", JIRAEscape(unit))
	b.WriteString("||Benchmark||" + JIRAEscape(t.Base) + "||")
	for _, c := range t.Columns {
		b.WriteString(JIRAEscape(c) + "||Diff||p||Verdict||")
	}
	b.WriteString("\n")
	rows := t.Rows
	if t.Geomean != nil && len(t.Rows) > 1 {
		rows = append(rows[:len(rows):len(rows)], *t.Geomean)
	}
	for _, r := range rows {
		b.WriteString("|" + JIRAEscape(r.Name) + "|" + jiraCell(r.Base) + "|")
		for _, c := range r.Cells {
			switch c.Presence {
			case compare.Added:
				b.WriteString(jiraCell(c.Value) + "|added| | |")
			case compare.Removed:
				b.WriteString(" |removed| | |")
			default:
				delta := JIRAEscape(c.Delta)
				switch c.Verdict {
				case compare.Better:
					delta = "{color:green}" + delta + "{color}"
				case compare.Worse:
					delta = "{color:red}" + delta + "{color}"
				}
				b.WriteString(jiraCell(c.Value) + "|" + jiraCell(delta) + "|" + jiraCell(JIRAEscape(c.Stat)) + "|" + jiraCell(string(c.Verdict)) + "|")
			}
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
}

// jiraCell keeps an empty cell from collapsing the table.
func jiraCell(s string) string {
	if s == "" {
		return " "
	}
	return s
}
