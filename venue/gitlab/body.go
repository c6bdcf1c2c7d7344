package gitlab

import (
	"unicode/utf8"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/venue"
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
	return head + venue.CutMarkdown(md, room, "GitLab's note limit")
}
