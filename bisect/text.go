package bisect

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"

	"github.com/perfbot/perfbot/report"
)

// WriteText writes one line per moved benchmark, such as
//
//	Write-8 ns/op: the -12% comes from 3/5 `wal: batch fsync` 1a2b3c4d5e6f (4.1 -> 3.6 ms, p=0.002); 1/5, 2/5, 4/5, 5/5 unchanged
func WriteText(w io.Writer, r *Result) error {
	var b strings.Builder
	fmt.Fprintf(&b, "bisect %.12s..%.12s: %d commits, %d comparisons after the whole series\n", r.Base, r.Head, len(r.Commits), r.Measured)
	if len(r.Benchmarks) == 0 {
		if r.MinChangePct > 0 {
			fmt.Fprintf(&b, "no benchmark moved significantly by %g%% or more from base to head: nothing to bisect\n", r.MinChangePct)
		} else {
			b.WriteString("no benchmark moved significantly from base to head: nothing to bisect\n")
		}
	}
	for _, bm := range r.Benchmarks {
		b.WriteString(line(bm, func(s string) string { return "`" + plain(s) + "`" }, plain))
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Markdown is the result as a section of a Markdown answer, with commit
// subjects and benchmark names made safe.
func Markdown(r *Result) string {
	return section(r, "#### Which commit\n\n", "- ", report.MarkdownCode, report.MarkdownEscape)
}

// JIRA is the result as a section of a JIRA wiki answer.
func JIRA(r *Result) string {
	code := func(s string) string { return "{{" + report.JIRAEscape(plain(s)) + "}}" }
	return section(r, "h4. Which commit\n\n", "* ", code, func(s string) string { return report.JIRAEscape(plain(s)) })
}

// Text is the result as a section of a plain-text answer.
func Text(r *Result) string {
	return section(r, "Which commit\n\n", "- ", func(s string) string { return "`" + plain(s) + "`" }, plain)
}

func section(r *Result, heading, bullet string, code, text func(string) string) string {
	var b strings.Builder
	b.WriteString(heading)
	if len(r.Benchmarks) == 0 {
		b.WriteString("No benchmark moved enough over the series to bisect.\n")
		return b.String()
	}
	fmt.Fprintf(&b, "The series of %d commits, bisected in %d comparisons:\n\n", len(r.Commits), r.Measured)
	for _, bm := range r.Benchmarks {
		b.WriteString(bullet + line(bm, code, text) + "\n")
	}
	return b.String()
}

// line is one benchmark's finding; code quotes a commit subject, text
// escapes other untrusted text.
func line(bm Benchmark, code, text func(string) string) string {
	name := text(bm.Benchmark)
	if p := bm.Params.String(); p != "" {
		name += " " + text(p)
	}
	name += " " + text(metricUnit(bm.Key))
	var b strings.Builder
	if r := bm.Responsible; r != nil {
		fmt.Fprintf(&b, "%s: the %s comes from %d/%d %s %.12s (%s -> %s, p=%s)", name, pct(bm.Overall.DeltaPct),
			r.Position, r.Of, code(r.Subject), r.Commit, value(r.Before, bm.Unit), value(r.After, bm.Unit), pval(r.P))
		for _, st := range bm.Changed {
			if st.Position != r.Position {
				fmt.Fprintf(&b, "; %d/%d also moved it %s (p=%s)", st.Position, st.Of, pct(st.DeltaPct), pval(st.P))
			}
		}
	} else {
		fmt.Fprintf(&b, "%s: %s from base to head (%s -> %s, p=%s), no single commit is responsible: ",
			name, pct(bm.Overall.DeltaPct), value(bm.Overall.Before, bm.Unit), value(bm.Overall.After, bm.Unit), pval(bm.Overall.P))
		if len(bm.Changed) == 0 {
			b.WriteString(bm.Reason)
		} else {
			parts := make([]string, len(bm.Changed))
			for i, st := range bm.Changed {
				parts[i] = fmt.Sprintf("%d/%d %s (%s, p=%s)", st.Position, st.Of, code(st.Subject), pct(st.DeltaPct), pval(st.P))
			}
			b.WriteString("it is spread over " + strings.Join(parts, " and "))
		}
	}
	if len(bm.Unchanged) > 0 {
		b.WriteString("; " + positions(bm.Unchanged, len(bm.Changed)+len(bm.Unchanged)+len(bm.Unmeasured)) + " unchanged")
	}
	if len(bm.Unmeasured) > 0 {
		b.WriteString("; " + positions(bm.Unmeasured, len(bm.Changed)+len(bm.Unchanged)+len(bm.Unmeasured)) + " not measured")
	}
	return b.String()
}

func metricUnit(k Key) string {
	if k.Metric != "" {
		return k.Metric + " " + k.Unit
	}
	return k.Unit
}

func positions(ps []int, of int) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = fmt.Sprintf("%d/%d", p, of)
	}
	return strings.Join(parts, ", ")
}

func pct(d float64) string {
	if math.Abs(d) >= 100 {
		return fmt.Sprintf("%+.0f%%", d)
	}
	return fmt.Sprintf("%+.3g%%", d)
}

func pval(p float64) string {
	if p < 0.001 {
		return "<0.001"
	}
	return strconv.FormatFloat(p, 'g', 2, 64)
}

// value formats a centre with its unit, times in the unit that suits them.
func value(v float64, unit string) string {
	per := ""
	u := unit
	if base, ok := strings.CutSuffix(unit, "/op"); ok {
		u, per = base, "/op"
	}
	if u == "ns" || u == "s" {
		ns := v
		if u == "s" {
			ns = v * 1e9
		}
		for _, s := range []struct {
			name  string
			scale float64
		}{{"s", 1e9}, {"ms", 1e6}, {"µs", 1e3}, {"ns", 1}} {
			if math.Abs(ns) >= s.scale || s.scale == 1 {
				return strconv.FormatFloat(ns/s.scale, 'g', 3, 64) + " " + s.name + per
			}
		}
	}
	return strconv.FormatFloat(v, 'g', 3, 64) + " " + unit
}

// plain drops control characters and folds whitespace, so hostile text
// cannot move the terminal's cursor or split a line.
func plain(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || unicode.Is(unicode.Bidi_Control, r) {
			return ' '
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}
