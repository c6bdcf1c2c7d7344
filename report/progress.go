package report

import (
	"github.com/perfbot/perfbot/internal/safetext"

	"html"
	"strings"

	"github.com/perfbot/perfbot/answer"
)

// Progress is the answer of a request that has no result yet: queued
// (answer.StateQueued), running (answer.StatePending) or cancelled, with
// status saying how it stands ("position 2 in the queue") and title the
// request's title, escaped per format. Its Summary is the status line cut
// to 140 characters; the caller sets Key, Subject and the mail thread.
func Progress(state answer.State, status, title string) answer.Answer {
	word := map[answer.State]string{answer.StateQueued: "queued", answer.StatePending: "running",
		answer.StateCancelled: "cancelled"}[state]
	line := "perfbot: " + word
	md, rb, jira, text := "**"+line+"**", "**"+line+"**", "*"+line+"*", line
	if status != "" {
		md += ": " + statusEscaper.Replace(status)
		rb += ": " + statusEscaper.Replace(status)
		jira += ": " + JIRAEscape(status)
		text += ": " + status
		line += ": " + status
	}
	md, rb, jira, text = md+"\n", rb+"\n", jira+"\n", text+"\n"
	if title != "" {
		md += "\nRequest: " + MarkdownEscape(title) + "\n"
		rb += "\nRequest: " + ReviewBoardEscape(title) + "\n"
		jira += "\nRequest: " + JIRAEscape(title) + "\n"
		text += "\nRequest: " + title + "\n"
	}
	if state != answer.StateCancelled {
		note := "This comment is edited in place with the result."
		md += "\n_" + note + "_\n"
		rb += "\n" + note + "\n"
		jira += "\n_" + note + "_\n"
		text += "\n" + note + "\n"
	}
	summary := strings.Join(strings.Fields(line), " ")
	if r := []rune(summary); len(r) > 140 {
		summary = string(r[:139]) + "…"
	}
	a := answer.Answer{Summary: summary, State: state}
	// The marker is added by each venue; JIRA's heading rule wants the
	// bold line on a line of its own, as it is.
	a.Set(answer.MarkdownGFM, answer.Rendering{Full: md})
	a.Set(answer.MarkdownRB, answer.Rendering{Full: rb})
	a.Set(answer.JIRAWiki, answer.Rendering{Full: jira})
	a.Set(answer.Text, answer.Rendering{Full: text})
	a.Set(answer.HTML, answer.Rendering{Full: "<p>" + html.EscapeString(strings.TrimSpace(text)) + "</p>"})
	return a.Map(safetext.Answer)
}

// statusEscaper escapes the Markdown punctuation a status line might
// carry (in a suite name, a user name); the status is perfbot's own words
// around those, so the heavier escaping of request text is not needed.
var statusEscaper = strings.NewReplacer(`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`,
	"<", `\<`, ">", `\>`, "#", `\#`, "|", `\|`, "~", `\~`, "\n", " ")
