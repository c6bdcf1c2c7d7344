package venue

import (
	"fmt"
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

// CutMarkdown shortens Markdown text to at most limit characters at line
// boundaries. It keeps the first line (the summary) and as much of the end
// as fits, says how many lines it left out to fit what ("GitHub's comment
// limit"), reopens a code fence or <details> section the cut falls inside,
// and closes any left open at the end, so the rest still renders as
// intended.
func CutMarkdown(text string, limit int, what string) string {
	if utf8.RuneCountInString(text) <= limit {
		return text
	}
	lines := strings.SplitAfter(text, "\n")
	first := lines[0]
	if !strings.HasSuffix(first, "\n") {
		first += "\n"
	}
	// state after each line: the open fence (or "") and <details> depth.
	type state struct {
		fence   string
		details int
	}
	states := make([]state, len(lines)+1)
	var s state
	for i, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case s.fence != "":
			if strings.HasPrefix(t, "```") && strings.Trim(t, "`") == "" {
				s.fence = ""
			}
		case strings.HasPrefix(t, "```"):
			s.fence = t
		case strings.HasPrefix(t, "<details"):
			s.details++
		case strings.HasPrefix(t, "</details>") && s.details > 0:
			s.details--
		}
		states[i+1] = s
	}
	build := func(from int) string {
		var b strings.Builder
		b.WriteString(first)
		fmt.Fprintf(&b, "\n*… %d lines left out to fit %s …*\n\n", from-1, what)
		st := states[from]
		for range st.details {
			b.WriteString("<details>\n\n")
		}
		if st.fence != "" {
			b.WriteString(st.fence + "\n")
		}
		for _, l := range lines[from:] {
			b.WriteString(l)
		}
		end := states[len(lines)]
		if end.fence != "" || end.details > 0 {
			if !strings.HasSuffix(b.String(), "\n") {
				b.WriteString("\n")
			}
			if end.fence != "" {
				b.WriteString("```\n")
			}
			for range end.details {
				b.WriteString("</details>\n")
			}
		}
		return b.String()
	}
	return KeepEnd(lines, limit, build)
}
