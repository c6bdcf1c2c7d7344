package github

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/review"
)

// CommentBody is the comment perfbot posts for msg: the marker line, then
// the full Markdown rendering (Format), or the short one when the full one
// would pass CommentLimit, cut further at a line boundary if even that is
// too long.
func CommentBody(msg answer.Answer) string {
	head := Marker(msg.Key) + "\n"
	room := CommentLimit - utf8.RuneCountInString(head)
	md, ok := msg.Fit(Format, room, utf8.RuneCountInString)
	if ok {
		return head + md
	}
	return head + Cut(md, room)
}

// Format is the rendering GitHub reads: GitHub-flavoured Markdown.
const Format = answer.MarkdownGFM

// Cut shortens Markdown text to at most limit characters at line
// boundaries. It keeps the first line (the summary) and as much of the end
// as fits, says how many lines it left out, reopens a code fence or
// <details> section the cut falls inside, and closes any left open at the
// end, so the rest still renders as intended.
func Cut(text string, limit int) string {
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
		fmt.Fprintf(&b, "\n*… %d lines left out to fit GitHub's comment limit …*\n\n", from-1)
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
	return review.KeepEnd(lines, limit, build)
}
