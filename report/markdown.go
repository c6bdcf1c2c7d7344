package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/perfbot/perfbot/compare"
)

var verdictEmoji = map[compare.Verdict]string{
	compare.Better: "🟢 better",
	compare.Worse:  "🔴 worse",
	compare.Same:   "same",
	compare.Noisy:  "🟡 noisy",
}

// Markdown writes cmp as GitHub-flavoured Markdown: a heading with the
// summary, one table per package and unit, failures with their log tails,
// and provenance in a collapsed section.
func Markdown(w io.Writer, cmp *compare.Comparison) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### perfbot: %s\n\n", MarkdownEscape(SummaryLine(cmp)))
	for _, t := range tables(cmp) {
		writeMarkdownTable(&b, t)
	}
	for _, f := range cmp.Failures {
		fmt.Fprintf(&b, "**FAILED: %s %s**: %s\n", MarkdownEscape(f.Variant), MarkdownEscape(f.Stage), MarkdownEscape(f.Message))
		if f.Limit != "" {
			fmt.Fprintf(&b, " (ended by the %s limit)", f.Limit)
		}
		b.WriteString("\n")
		if f.LogTail != "" {
			fence := codeFence(f.LogTail)
			fmt.Fprintf(&b, "%s\n%s\n%s\n", fence, tail(f.LogTail, 20), fence)
		}
		b.WriteString("\n")
	}
	for _, w := range cmp.Warnings {
		fmt.Fprintf(&b, "> warning: %s\n", MarkdownEscape(w))
	}
	if lines := provenanceLines(&cmp.Provenance); len(lines) > 0 {
		b.WriteString("<details><summary>Provenance</summary>\n\n")
		for _, l := range lines {
			fmt.Fprintf(&b, "- %s\n", MarkdownEscape(l))
		}
		b.WriteString("\n</details>\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeMarkdownTable(b *strings.Builder, t *table) {
	unit := t.Unit
	if t.Metric != "" {
		unit = t.Metric + " " + unit
	}
	if t.Group != "" {
		fmt.Fprintf(b, "**%s** · ", MarkdownEscape(t.Group))
	}
	fmt.Fprintf(b, "%s\n\n", MarkdownEscape(unit))
	b.WriteString("| Benchmark | " + MarkdownEscape(t.Base))
	align := "|:--|--:"
	for _, c := range t.Columns {
		b.WriteString(" | " + MarkdownEscape(c) + " | Δ | p | verdict")
		align += "|--:|--:|:--|:--"
	}
	b.WriteString(" |\n" + align + "|\n")
	rows := t.Rows
	if t.Geomean != nil && len(t.Rows) > 1 {
		rows = append(rows[:len(rows):len(rows)], *t.Geomean)
	}
	for _, r := range rows {
		name := MarkdownEscape(r.Name)
		if r.Name == "geomean" && r.Base != "" && len(r.Cells) > 0 && r.Cells[0].Stat == "" {
			name = "*geomean*"
		}
		b.WriteString("| " + name + " | " + MarkdownEscape(r.Base))
		for _, c := range r.Cells {
			switch c.Presence {
			case compare.Added:
				b.WriteString(" | " + MarkdownEscape(c.Value) + " | added | | ")
			case compare.Removed:
				b.WriteString(" | | removed | | ")
			default:
				delta := MarkdownEscape(c.Delta)
				if c.Verdict == compare.Better || c.Verdict == compare.Worse {
					delta = "**" + delta + "**"
				}
				b.WriteString(" | " + MarkdownEscape(c.Value) + " | " + delta + " | " + MarkdownEscape(c.Stat) + " | " + verdictEmoji[c.Verdict])
			}
		}
		b.WriteString(" |\n")
	}
	b.WriteString("\n")
}

// codeFence returns a backtick fence longer than any run of backticks in s,
// so that s cannot close it.
func codeFence(s string) string {
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}
