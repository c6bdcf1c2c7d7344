package report

import (
	"fmt"
	"html"
	"strings"

	"github.com/perfbot/perfbot/answer"
)

// LinkRun adds a link to the run's page at url to every rendering of msg.
// The venues whose answers cannot hold files (GitHub comments, Review
// Board reviews) also say how many charts and flame graphs they leave out
// and that the page has them; flames counts the flame graphs kept with
// the run beside msg's own image attachments.
func LinkRun(msg answer.Answer, url string, flames int) answer.Answer {
	if url == "" {
		return msg
	}
	images := flames
	for _, a := range msg.Attachments {
		if strings.HasPrefix(a.ContentType, "image/") {
			images++
		}
	}
	left := ""
	if images > 0 {
		s := "s"
		if images == 1 {
			s = ""
		}
		left = fmt.Sprintf(" This venue cannot hold files: the %d image%s (charts, flame graphs) of this run are on that page.",
			images, s)
	}
	md := fmt.Sprintf("\n\n**[Run page](%s)**: every table, charts, flame graphs and raw results.%s\n", url, left)
	short := fmt.Sprintf("\n\n**[Run page](%s)**: full results, charts and flame graphs.\n", url)
	jira := fmt.Sprintf("\n\n*[Run page|%s]*: every table, charts, flame graphs and raw results.\n", url)
	text := "\n\nRun page (every table, charts, flame graphs, raw results): " + url + "\n"
	add := func(s, tail string) string {
		if s == "" {
			return ""
		}
		return strings.TrimRight(s, "\n") + tail
	}
	for f, r := range msg.Renderings {
		switch f {
		case answer.MarkdownGFM:
			r = answer.Rendering{Full: add(r.Full, md), Short: add(r.Short, short)}
		case answer.MarkdownRB:
			r.Full = add(r.Full, md)
		case answer.JIRAWiki:
			r = answer.Rendering{Full: add(r.Full, jira), Short: add(r.Short, jira)}
		case answer.Text:
			r.Full = add(r.Full, text)
		case answer.HTML:
			if r.Full != "" {
				p := fmt.Sprintf(`<p><a href="%s">Run page</a>: every table, charts, flame graphs and raw results.</p>`, html.EscapeString(url))
				if i := strings.LastIndex(r.Full, "</body>"); i >= 0 {
					r.Full = r.Full[:i] + p + "\n" + r.Full[i:]
				} else {
					r.Full += "\n" + p + "\n"
				}
			}
		}
		msg.Set(f, r)
	}
	return msg
}
