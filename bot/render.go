package bot

import (
	"bytes"
	"fmt"
	"html"

	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/report"
	"github.com/perfbot/perfbot/review"
)

// RenderReport renders a comparison with the report package for every
// venue: Markdown, JIRA, text, and HTML (the text, preformatted).
func RenderReport(cmp *compare.Comparison) review.Message {
	var msg review.Message
	render := func(f func(*bytes.Buffer) error) string {
		var b bytes.Buffer
		if err := f(&b); err != nil {
			return fmt.Sprintf("perfbot could not render this report: %v", err)
		}
		return b.String()
	}
	msg.Markdown = render(func(b *bytes.Buffer) error { return report.Markdown(b, cmp) })
	msg.JIRA = render(func(b *bytes.Buffer) error { return report.JIRA(b, cmp) })
	msg.Text = render(func(b *bytes.Buffer) error { return report.Text(b, cmp) })
	msg.HTML = "<pre>" + html.EscapeString(msg.Text) + "</pre>"
	msg.Summary = report.SummaryLine(cmp)
	msg.Subject = "perfbot: " + msg.Summary
	msg.State = stateOf(cmp)
	return msg
}

// stateOf is the venue state of a comparison: error when nothing could be
// compared, failure when something got worse, success otherwise.
func stateOf(cmp *compare.Comparison) review.State {
	if len(cmp.Rows) == 0 && len(cmp.Failures) > 0 {
		return review.StateError
	}
	for _, t := range cmp.Summary {
		if t.Worse > 0 {
			return review.StateFailure
		}
	}
	return review.StateSuccess
}
