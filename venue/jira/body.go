package jira

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/venue"
)

// Format is the rendering JIRA reads: wiki markup.
const Format = answer.JIRAWiki

// CommentBody is the comment perfbot posts for msg: its wiki markup, or
// the short rendering when the full one would pass CommentLimit, cut
// further at a line boundary if even that is too long; then the charts
// among msg.Attachments, shown with !NAME!. The marker goes on a line of
// its own, after the first line when that is a heading (a heading only
// renders at the start of its line), else before it.
func CommentBody(msg answer.Answer) string {
	marker := Marker(msg.Key) + "\n"
	charts := chartLines(msg.Attachments)
	room := CommentLimit - utf8.RuneCountInString(marker) - utf8.RuneCountInString(charts)
	w, ok := msg.Fit(Format, room, utf8.RuneCountInString)
	if !ok {
		w = Cut(w, room)
	}
	return placeMarker(w, marker) + charts
}

// heading matches a JIRA heading line, "h1. " to "h6. ".
var heading = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^h[1-6]\. `) })

// placeMarker puts the marker line after w's first line when that is a
// heading, else before w.
func placeMarker(w, marker string) string {
	first, rest, ok := strings.Cut(w, "\n")
	if heading().MatchString(first) {
		if !ok {
			return first + "\n" + marker
		}
		return first + "\n" + marker + rest
	}
	return marker + w
}

// chartLines shows each image attachment (a chart) with !NAME!, under a
// heading; names that wiki markup cannot quote are left out.
func chartLines(atts []answer.Attachment) string {
	var b strings.Builder
	for _, a := range atts {
		if !strings.HasPrefix(a.ContentType, "image/") || a.Name == "" || strings.ContainsAny(a.Name, "!|\r\n{}[]") {
			continue
		}
		if b.Len() == 0 {
			b.WriteString("\n*Charts*\n")
		}
		b.WriteString("!" + a.Name + "!\n")
	}
	return b.String()
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
	return venue.KeepEnd(lines, limit, build)
}
