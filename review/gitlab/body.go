package gitlab

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/review"
)

// NoteLimit is the longest note GitLab stores, in characters.
const NoteLimit = 1_000_000

// Format is the rendering GitLab reads: GitHub-flavoured Markdown, which
// GitLab Flavored Markdown renders (tables, fences, <details>).
const Format = answer.MarkdownGFM

// NoteBody is the note perfbot posts for msg: the marker line, then the
// full Markdown rendering, or the short one when the full one would pass
// NoteLimit, cut further at a line boundary if even that is too long.
// GitLab's own references in text outside code are broken up
// (breakReferences).
func NoteBody(msg answer.Answer) string {
	head := Marker(msg.Key) + "\n"
	room := NoteLimit - utf8.RuneCountInString(head)
	r := msg.Renderings[Format]
	msg.Set(Format, answer.Rendering{Full: breakReferences(r.Full), Short: breakReferences(r.Short)})
	md, ok := msg.Fit(Format, room, utf8.RuneCountInString)
	if ok && md != "" {
		return head + md
	}
	if md == "" {
		md = msg.Summary
	}
	return head + cut(md, room)
}

// cut shortens Markdown to at most limit characters at line boundaries,
// keeping the first line (the summary) and as much of the end as fits; a
// code fence or <details> section the cut falls inside is reopened, and
// any left open at the end is closed.
func cut(text string, limit int) string {
	if utf8.RuneCountInString(text) <= limit {
		return text
	}
	lines := strings.SplitAfter(text, "\n")
	first := lines[0]
	if !strings.HasSuffix(first, "\n") {
		first += "\n"
	}
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
		fmt.Fprintf(&b, "\n*… %d lines left out to fit GitLab's note limit …*\n\n", from-1)
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
		if end := states[len(lines)]; end.fence != "" || end.details > 0 {
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
