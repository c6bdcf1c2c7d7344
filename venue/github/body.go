package github

import (
	"unicode/utf8"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/venue"
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
// boundaries, as review.CutMarkdown does, naming GitHub's comment limit.
func Cut(text string, limit int) string {
	return venue.CutMarkdown(text, limit, "GitHub's comment limit")
}
