package intake

import (
	"github.com/perfbot/perfbot/report"
	"github.com/perfbot/perfbot/review"
)

// RefusalMessage is the answer to a request that the trigger policy
// refused: the policy's polite text (plain, from trigger.Decision.Refusal),
// escaped for each venue. key makes the answer stable (a mail's
// Message-ID), so a second attempt to answer edits or repeats the same
// post instead of adding another; subject is the subject of the request,
// answered with "Re:" in a mail thread.
func RefusalMessage(key, subject, text string) review.Message {
	md := report.MarkdownEscape(text)
	jira := report.JIRAEscape(text)
	return review.Message{
		Key:                 key,
		Subject:             subject,
		Summary:             "not run: the trigger policy does not allow this request",
		Markdown:            md,
		ShortMarkdown:       md,
		ReviewBoardMarkdown: report.ReviewBoardEscape(text),
		JIRA:                jira,
		ShortJIRA:           jira,
		Text:                text + "\n",
	}
}
