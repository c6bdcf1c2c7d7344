package jira

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/perfbot/perfbot/review"
)

// CommentBody is the comment perfbot posts for msg: the marker, then
// msg.JIRA, or msg.ShortJIRA when the full rendering would pass
// CommentLimit, cut further at a line boundary if even that is too long.
func CommentBody(msg review.Message) string {
	head := Marker(msg.Key)
	room := CommentLimit - utf8.RuneCountInString(head)
	for _, w := range []string{msg.JIRA, msg.ShortJIRA} {
		if w != "" && utf8.RuneCountInString(w) <= room {
			return head + w
		}
	}
	w := msg.ShortJIRA
	if w == "" {
		w = msg.JIRA
	}
	return head + Cut(w, room)
}

// toggles are the wiki-markup blocks whose lines must not be cut apart
// from their closing tag: {code}, {noformat}, {quote}, {panel}.
var toggles = []string{"code", "noformat", "quote", "panel"}

// blockTag returns the block macro a line opens or closes ("code" for
// "{code:java}" or "{code}"), or "".
func blockTag(line string) (tag string, bare bool) {
	t := strings.TrimSpace(line)
	for _, m := range toggles {
		if t == "{"+m+"}" {
			return m, true
		}
		if strings.HasPrefix(t, "{"+m+":") {
			return m, false
		}
	}
	return "", false
}

// Cut shortens wiki markup to at most limit characters at line boundaries:
// it keeps the first line (the summary) and as much of the end as fits,
// says how many lines it left out, reopens a {code} or {noformat} block
// the cut falls inside, and closes one left open at the end.
func Cut(text string, limit int) string {
	if utf8.RuneCountInString(text) <= limit {
		return text
	}
	lines := strings.SplitAfter(text, "\n")
	first := lines[0]
	if !strings.HasSuffix(first, "\n") {
		first += "\n"
	}
	open := make([]string, len(lines)+1) // the opening line of the block open after line i
	cur := ""
	for i, l := range lines {
		tag, bare := blockTag(l)
		switch {
		case cur != "":
			if t, _ := blockTag(cur); tag == t && bare {
				cur = ""
			}
		case tag != "":
			cur = strings.TrimSpace(l)
		}
		open[i+1] = cur
	}
	build := func(from int) string {
		var b strings.Builder
		b.WriteString(first)
		fmt.Fprintf(&b, "\n_(%d lines left out to fit JIRA's comment limit)_\n\n", from-1)
		if o := open[from]; o != "" {
			b.WriteString(o + "\n")
		}
		for _, l := range lines[from:] {
			b.WriteString(l)
		}
		if o := open[len(lines)]; o != "" {
			if !strings.HasSuffix(b.String(), "\n") {
				b.WriteString("\n")
			}
			t, _ := blockTag(o)
			b.WriteString("{" + t + "}\n")
		}
		return b.String()
	}
	return review.KeepEnd(lines, limit, build)
}
