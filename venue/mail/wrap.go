package mail

import (
	"strings"
	"unicode/utf8"
)

// Widths of a plain-text answer, as mailing lists expect: tables within
// TableWidth columns, other lines wrapped at TextWidth.
const (
	TableWidth = 72
	TextWidth  = 78
)

// FitText lays plain text out for mail. A table (a block of two or more
// lines whose columns are aligned with at least two spaces between them)
// wider than TableWidth is split into narrower tables that each repeat the
// first column, the name of the row; when the first column alone is too
// wide, each row's name goes on a line of its own above its cells. Other
// lines longer than TextWidth are wrapped at spaces, keeping their indent.
// A single word longer than a line is left whole.
func FitText(s string) string {
	trailing := strings.HasSuffix(s, "\n")
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	var out []string
	for i := 0; i < len(lines); {
		if strings.TrimSpace(lines[i]) == "" {
			out = append(out, "")
			i++
			continue
		}
		j := i
		for j < len(lines) && strings.TrimSpace(lines[j]) != "" {
			j++
		}
		out = append(out, fitBlock(lines[i:j])...)
		i = j
	}
	res := strings.Join(out, "\n")
	if trailing {
		res += "\n"
	}
	return res
}

// fitBlock fits one block of non-blank lines.
func fitBlock(block []string) []string {
	start := 0
	var out []string
	if len(block) > 2 && !strings.Contains(strings.TrimSpace(block[0]), "  ") && len(gaps(block[1:])) > 0 {
		// A title above the table: a line without column gaps of its own.
		out = append(out, wrap(block[0], TextWidth)...)
		start = 1
	}
	rows := block[start:]
	if g := gaps(rows); len(rows) >= 2 && len(g) > 0 {
		return append(out, fitTable(rows, g)...)
	}
	for _, l := range rows {
		out = append(out, wrap(l, TextWidth)...)
	}
	return out
}

// span is a range of rune positions [lo, hi).
type span struct{ lo, hi int }

// gaps returns the runs of at least two positions that are blank in every
// line and have text on both sides in some line: the gaps between the
// columns of a table.
func gaps(lines []string) []span {
	width := 0
	rs := make([][]rune, len(lines))
	for i, l := range lines {
		rs[i] = []rune(strings.TrimRight(l, " "))
		width = max(width, len(rs[i]))
	}
	blank := func(p int) bool {
		for _, r := range rs {
			if p < len(r) && r[p] != ' ' {
				return false
			}
		}
		return true
	}
	// Leading indent is not a gap: start after the first text.
	first := width
	for _, r := range rs {
		for p, c := range r {
			if c != ' ' {
				first = min(first, p)
				break
			}
		}
	}
	var out []span
	for p := first; p < width; {
		if !blank(p) {
			p++
			continue
		}
		q := p
		for q < width && blank(q) {
			q++
		}
		if q-p >= 2 && q < width {
			out = append(out, span{p, q})
		}
		p = q
	}
	return out
}

// fitTable splits a table wider than TableWidth into narrower ones.
func fitTable(rows []string, g []span) []string {
	widest := 0
	rs := make([][]rune, len(rows))
	for i, l := range rows {
		rs[i] = []rune(strings.TrimRight(l, " "))
		widest = max(widest, len(rs[i]))
	}
	if widest <= TableWidth {
		return rows
	}
	// Columns lie between the gaps.
	var cols []span
	lo := 0
	for _, s := range g {
		cols = append(cols, span{lo, s.lo})
		lo = s.hi
	}
	cols = append(cols, span{lo, widest})
	cell := func(r []rune, c span) string {
		if c.lo >= len(r) {
			return strings.Repeat(" ", c.hi-c.lo)
		}
		s := string(r[c.lo:min(c.hi, len(r))])
		return s + strings.Repeat(" ", c.hi-c.lo-utf8.RuneCountInString(s))
	}
	// The leading left-aligned columns name a row (benchmark, params):
	// they are repeated in each narrower table.
	nkeys := 1
	for nkeys < len(cols)-1 && leftAligned(rs, cols[nkeys]) {
		nkeys++
	}
	keys, rest := cols[:nkeys], cols[nkeys:]
	keyWidth := keys[len(keys)-1].hi - keys[0].lo
	ownLine := keyWidth > TableWidth/2
	for _, c := range rest {
		if keyWidth+2+c.hi-c.lo > TableWidth {
			ownLine = true // a column too wide to stand beside the keys
		}
	}
	indent := keyWidth + 2
	if ownLine {
		indent = 4
	}
	// Pack the other columns into groups that fit beside the keys.
	var groups [][]span
	for _, c := range rest {
		w := c.hi - c.lo
		n := len(groups)
		if n > 0 {
			used := indent
			for _, d := range groups[n-1] {
				used += d.hi - d.lo + 2
			}
			if used+w <= TableWidth {
				groups[n-1] = append(groups[n-1], c)
				continue
			}
		}
		groups = append(groups, []span{c})
	}
	keyOf := func(r []rune) string {
		var ks []string
		for _, k := range keys {
			if c := strings.TrimSpace(cell(r, k)); c != "" {
				ks = append(ks, c)
			}
		}
		return strings.Join(ks, "  ")
	}
	var out []string
	for gi, grp := range groups {
		if gi > 0 {
			out = append(out, "")
		}
		for _, r := range rs {
			var cells []string
			for _, c := range grp {
				cells = append(cells, cell(r, c))
			}
			body := strings.Join(cells, "  ")
			if gi > 0 && strings.TrimSpace(body) == "" {
				continue // nothing of this row in this part of the table
			}
			if ownLine {
				if k := keyOf(r); k != "" {
					out = append(out, wrap(k, TextWidth)...)
				}
				if strings.TrimSpace(body) != "" {
					out = append(out, wrap(strings.TrimRight("    "+body, " "), TableWidth)...)
				}
				continue
			}
			out = append(out, strings.TrimRight(string(r[:min(len(r), keys[len(keys)-1].hi)])+strings.Repeat(" ", max(0, keys[len(keys)-1].hi-len(r)))+"  "+body, " "))
		}
	}
	return out
}

// leftAligned reports whether every row's cell in column c starts at the
// column's left edge (or is blank): a text column, not a number.
func leftAligned(rs [][]rune, c span) bool {
	for _, r := range rs {
		if c.lo >= len(r) {
			continue
		}
		cell := r[c.lo:min(c.hi, len(r))]
		if strings.TrimSpace(string(cell)) != "" && cell[0] == ' ' {
			return false
		}
	}
	return true
}

// wrap breaks a line longer than width at spaces; continuation lines keep
// the line's indent.
func wrap(line string, width int) []string {
	if utf8.RuneCountInString(line) <= width {
		return []string{line}
	}
	indent := line[:len(line)-len(strings.TrimLeft(line, " "))]
	words := strings.Fields(line)
	var out []string
	cur := indent
	for _, w := range words {
		switch {
		case strings.TrimSpace(cur) == "":
			cur += w
		case utf8.RuneCountInString(cur)+1+utf8.RuneCountInString(w) <= width:
			cur += " " + w
		default:
			out = append(out, cur)
			cur = indent + w
		}
	}
	return append(out, cur)
}
