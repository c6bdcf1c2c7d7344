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

// cellWriter builds the cells of one table as text.tmpl writes them
// (a tab ends a cell, end a line), then aligns them as alignColumns does,
// without joining the cells into lines and splitting them again.
type cellWriter struct {
	// cell is the cell being written: its one piece as given, or, once
	// a second piece comes, their copy in buf.
	cell   string
	pieces int
	buf    []byte
	row    []string
	grid   [][]string
	size   int
}

// piece appends p, which holds no tab, to the current cell.
func (c *cellWriter) piece(p string) {
	switch c.pieces {
	case 0:
		c.cell = p
	case 1:
		c.buf = append(append(c.buf[:0], c.cell...), p...)
	default:
		c.buf = append(c.buf, p...)
	}
	c.pieces++
}

// endCell closes the current cell.
func (c *cellWriter) endCell() {
	cell := c.cell
	if c.pieces > 1 {
		cell = string(c.buf)
	}
	c.row = append(c.row, cell)
	c.size += len(cell) + 2
	c.cell, c.pieces = "", 0
}

func (c *cellWriter) str(s string) {
	for {
		i := strings.IndexByte(s, '\t')
		if i < 0 {
			if s != "" {
				c.piece(s)
			}
			return
		}
		if i > 0 {
			c.piece(s[:i])
		}
		c.endCell()
		s = s[i+1:]
	}
}

func (c *cellWriter) txt(s string) {
	if s = textEscape(s); s != "" {
		c.piece(s)
	}
}

func (c *cellWriter) end() {
	c.endCell()
	c.grid = append(c.grid, c.row)
	c.row = nil
	c.size++
}

// aligned writes head, then the collected lines laid out in columns.
func (c *cellWriter) aligned(head string) string {
	var b strings.Builder
	b.Grow(len(head) + c.size + c.size/2)
	b.WriteString(head)
	writeGrid(&b, c.grid)
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
