package report

import (
	"fmt"
	"strings"
	texttemplate "text/template"
)

// The plain-text tables of a large comparison are most of its rendering
// cost when text/template walks them cell by cell. When no user template
// overrides the text venue, the "units" and "table" blocks of text.tmpl
// are replaced by Go functions that write the same bytes, already laid
// out in aligned columns (no tabs, so alignWriter passes them through).
// TestFastTextMatchesTemplate checks that both give the same output: a
// change to either block of text.tmpl must be made here too.

// fastTextBlocks are the text.tmpl blocks the Go functions stand in for.
var fastTextBlocks = map[string]string{
	"units": `{{unitsText .}}`,
	"table": `{{tableText .}}`,
}

// fastTextFuncs are the functions fastTextBlocks call.
func fastTextFuncs() texttemplate.FuncMap {
	return texttemplate.FuncMap{"unitsText": unitsText, "tableText": tableText}
}

// useFastText redefines the blocks of t named in fastTextBlocks.
func useFastText(t *texttemplate.Template) error {
	for name, text := range fastTextBlocks {
		if _, err := t.New(name).Parse(`{{define "` + name + `"}}` + text + `{{end}}`); err != nil {
			return fmt.Errorf("report: text fast path %s: %w", name, err)
		}
	}
	return nil
}

// cellWriter builds the tab-separated lines of one table as text.tmpl
// writes them, then aligns them as alignColumns does.
type cellWriter struct {
	line  strings.Builder
	lines []string
}

func (c *cellWriter) str(s string) { c.line.WriteString(s) }

func (c *cellWriter) txt(s string) { c.line.WriteString(textEscape(s)) }

func (c *cellWriter) end() {
	c.line.WriteByte('\n')
	c.lines = append(c.lines, c.line.String())
	c.line.Reset()
}

// aligned writes head, then the collected lines laid out in columns.
func (c *cellWriter) aligned(head string) string {
	var b strings.Builder
	n := len(head)
	for _, l := range c.lines {
		n += len(l) + len(l)/2
	}
	b.Grow(n)
	b.WriteString(head)
	if len(c.lines) > 0 {
		writeAligned(&b, c.lines)
	}
	return b.String()
}

func or1(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

// unitsText is text.tmpl's "units" block.
func unitsText(s *Section) (string, error) {
	var head strings.Builder
	head.WriteString(textEscape(s.Title))
	head.WriteString(": ")
	head.WriteString(textEscape(s.Base))
	head.WriteString(" -> ")
	for i, c := range s.Candidates {
		if i > 0 {
			head.WriteString(", ")
		}
		head.WriteString(textEscape(c))
	}
	head.WriteByte('\n')
	var w cellWriter
	for _, l := range s.Lines {
		for i, u := range l.Units {
			if i >= len(s.Units) {
				return "", fmt.Errorf("units: line %q has %d units, the section %d", l.Name, len(l.Units), len(s.Units))
			}
			if i == 0 {
				w.txt(l.Name)
				for _, p := range l.Params {
					w.str(" ")
					w.txt(p)
				}
			}
			w.str("\t" + leftMark)
			w.txt(s.Units[i])
			w.str("\t")
			w.str(or1(textEscape(u.Base), "-"))
			w.str("\t")
			w.str(or1(textEscape(u.Value), "-"))
			w.str("\t")
			w.txt(u.Delta)
			w.str("\t" + leftMark)
			w.str(u.Verdict)
			w.str("\t" + leftMark)
			w.txt(u.Stat)
			w.end()
		}
	}
	return w.aligned(head.String()), nil
}

// tableText is text.tmpl's "table" block.
func tableText(s *Section) string {
	var w cellWriter
	for _, p := range s.Params {
		w.str("\t")
		w.txt(p)
	}
	w.str("\t")
	w.txt(s.Base)
	for _, c := range s.Candidates {
		w.str("\t")
		w.txt(c)
		w.str("\tvs ")
		w.txt(s.Base)
		w.str("\t" + leftMark + "verdict\t" + leftMark)
	}
	w.end()
	for _, l := range s.Lines {
		w.txt(l.Name)
		for _, p := range l.Params {
			w.str("\t")
			w.txt(p)
		}
		w.str("\t")
		w.txt(l.Base)
		for _, c := range l.Cells {
			w.str("\t")
			w.txt(c.Value)
			w.str("\t")
			w.txt(c.Delta)
			w.str("\t" + leftMark)
			w.str(c.Verdict)
			w.str("\t" + leftMark)
			if c.Stat != "" {
				w.str("(")
				w.txt(c.Stat)
				w.str(")")
			}
		}
		w.end()
	}
	if g := s.Geomean; g != nil {
		w.str("geomean")
		for range g.Params {
			w.str("\t")
		}
		w.str("\t")
		w.txt(g.Base)
		for _, c := range g.Cells {
			w.str("\t")
			w.txt(c.Value)
			w.str("\t")
			w.txt(c.Delta)
			w.str("\t\t")
		}
		w.end()
	}
	return w.aligned(textEscape(s.Title) + "\n")
}
