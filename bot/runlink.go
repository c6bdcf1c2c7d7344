package bot

import (
	"fmt"
	"html"
	"strconv"
	"strings"

	"github.com/perfbot/perfbot/review"
)

// RunURL is the page of a run under the service's public address
// (service.url), or "" when none is configured.
func RunURL(base string, runID int64) string {
	if base == "" || runID <= 0 {
		return ""
	}
	return strings.TrimSuffix(base, "/") + "/runs/" + strconv.FormatInt(runID, 10)
}

// LinkRun adds a link to the run's page to every rendering of msg. The
// venues whose answers cannot hold files (GitHub comments, Review Board
// reviews) also say how many charts and flame graphs they leave out and
// that the page has them; flames counts the flame graphs kept with the
// run beside msg's own image attachments.
func LinkRun(msg review.Message, url string, flames int) review.Message {
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
		left = fmt.Sprintf(" This venue cannot hold files: the %d image%s (charts, flame graphs) of this run are on that page.",
			images, plural(images))
	}
	md := fmt.Sprintf("\n\n**[Run page](%s)**: every table, charts, flame graphs and raw results.%s\n", url, left)
	short := fmt.Sprintf("\n\n**[Run page](%s)**: full results, charts and flame graphs.\n", url)
	if msg.Markdown != "" {
		msg.Markdown = strings.TrimRight(msg.Markdown, "\n") + md
	}
	if msg.ShortMarkdown != "" {
		msg.ShortMarkdown = strings.TrimRight(msg.ShortMarkdown, "\n") + short
	}
	if msg.ReviewBoardMarkdown != "" {
		msg.ReviewBoardMarkdown = strings.TrimRight(msg.ReviewBoardMarkdown, "\n") + md
	}
	jira := fmt.Sprintf("\n\n*[Run page|%s]*: every table, charts, flame graphs and raw results.\n", url)
	if msg.JIRA != "" {
		msg.JIRA = strings.TrimRight(msg.JIRA, "\n") + jira
	}
	if msg.ShortJIRA != "" {
		msg.ShortJIRA = strings.TrimRight(msg.ShortJIRA, "\n") + jira
	}
	if msg.Text != "" {
		msg.Text = strings.TrimRight(msg.Text, "\n") + "\n\nRun page (every table, charts, flame graphs, raw results): " + url + "\n"
	}
	if msg.HTML != "" {
		p := fmt.Sprintf(`<p><a href="%s">Run page</a>: every table, charts, flame graphs and raw results.</p>`, html.EscapeString(url))
		if i := strings.LastIndex(msg.HTML, "</body>"); i >= 0 {
			msg.HTML = msg.HTML[:i] + p + "\n" + msg.HTML[i:]
		} else {
			msg.HTML += "\n" + p + "\n"
		}
	}
	return msg
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
