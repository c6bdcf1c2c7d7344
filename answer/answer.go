// Package answer holds a job's rendered answer: one rendering per markup
// format, the files sent with it and the outcome a venue shows. Package
// report builds it; venue clients (review/github, review/jira,
// review/reviewboard, mail) only read it and post the rendering that fits
// their markup, within the size limit defined here.
package answer

// Answer is one job's answer, rendered in every format a venue reads.
type Answer struct {
	// Key identifies the job's answer stably across retries and reruns: a
	// client uses it to find and edit its earlier post (a hidden marker in
	// a comment, the Message-ID of a mail) instead of posting twice.
	Key string
	// Subject is a one-line title: a mail's subject, a review's heading.
	Subject string
	// Summary is a one-line verdict ("2 better, 1 worse, 14 same"), for
	// a commit status or a digest line.
	Summary string
	// State is the outcome for venues that show one (commit statuses).
	State State
	// Markdown is GitHub-flavoured Markdown.
	Markdown string
	// ShortMarkdown is a shorter Markdown rendering (headline and the
	// changed rows) that fits GitHubCommentLimit.
	ShortMarkdown string
	// ReviewBoardMarkdown is Review Board's Markdown (text_type=markdown):
	// no raw HTML, no <details>, no emoji.
	ReviewBoardMarkdown string
	// JIRA is JIRA wiki markup.
	JIRA string
	// ShortJIRA is the shorter JIRA rendering that fits JIRACommentLimit.
	ShortJIRA string
	// Text is plain text with aligned columns (a mail's first part).
	Text string
	// HTML is a self-contained HTML rendering (a mail's second part, when
	// the list takes HTML).
	HTML string
	// Attachments are raw results and charts.
	Attachments []Attachment
	// InReplyTo and References place a mail answer in the thread that
	// asked (the Message-IDs of the cover letter or first patch and of
	// its ancestors); other venues ignore them.
	InReplyTo  string
	References []string
}

// State is the outcome shown by venues that have one.
type State string

// States of a posted answer.
const (
	StateSuccess State = "success" // compared; nothing got worse
	StateFailure State = "failure" // compared; something got worse
	StateError   State = "error"   // nothing could be compared
	StatePending State = "pending" // running (or queued, where a venue has no queued state)
	// StateQueued is a request admitted and waiting for a worker.
	StateQueued State = "queued"
	// StateCancelled is a request cancelled before its result.
	StateCancelled State = "cancelled"
)

// Attachment is a file sent with an answer.
type Attachment struct {
	Name        string
	ContentType string
	Data        []byte
	// Inline marks an image meant to be shown in the body (mail's
	// multipart/related), rather than offered as a download.
	Inline bool
}

// Venue size limits, in characters. Each venue client cuts to its own;
// report fits the short renderings to them.
const (
	// GitHubCommentLimit is the longest issue or pull request comment
	// GitHub accepts.
	GitHubCommentLimit = 65536
	// JIRACommentLimit is the longest comment JIRA stores.
	JIRACommentLimit = 32767
	// GitHubStatusLimit is the longest commit status description.
	GitHubStatusLimit = 140
)
