package service

import (
	"strconv"
	"strings"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/report"
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
func LinkRun(msg answer.Answer, url string, flames int) answer.Answer {
	return report.LinkRun(msg, url, flames)
}
