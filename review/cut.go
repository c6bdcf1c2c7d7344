package review

import (
	"strings"
	"unicode/utf8"
)

// KeepEnd shortens a text split into lines (each with its "\n") to at most
// limit characters, the way every venue cuts an answer too long for it: the
// first line (the summary) stays, then as much of the end as fits. build(from)
// renders the first line, the venue's note on the cut and lines[from:],
// reopening and closing whatever block the cut falls inside; KeepEnd returns
// the first rendering, for from = 1, 2, …, that fits. When none does, it
// returns the first line cut to the limit and marked with "…".
func KeepEnd(lines []string, limit int, build func(from int) string) string {
	if len(lines) == 0 || limit < 1 {
		return ""
	}
	// Characters from line i to the end: a rendering keeping lines[from:]
	// cannot fit when they alone do not.
	size := make([]int, len(lines)+1)
	for i := len(lines) - 1; i >= 0; i-- {
		size[i] = size[i+1] + utf8.RuneCountInString(lines[i])
	}
	for from := 1; from <= len(lines); from++ {
		if size[from] > limit {
			continue
		}
		if out := build(from); utf8.RuneCountInString(out) <= limit {
			return out
		}
	}
	first := lines[0]
	if !strings.HasSuffix(first, "\n") {
		first += "\n"
	}
	r := []rune(first)
	return string(r[:min(len(r), limit-1)]) + "…"
}
