// Package review holds what every venue client shares: the rendered answer
// to post and the destination it goes to. The clients themselves live in
// review/github, review/jira, review/reviewboard and mail.
package review

import (
	"context"
	"fmt"
	"strings"
)

// Message is one job's answer, rendered for every venue; each client posts
// the rendering that fits its markup.
type Message struct {
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
	// Markdown is GitHub-flavoured Markdown, for GitHub and Review Board.
	Markdown string
	// ShortMarkdown is a shorter Markdown rendering (summary and the
	// changed rows) for a venue whose size limit Markdown exceeds.
	ShortMarkdown string
	// ReviewBoardMarkdown is Review Board's Markdown (text_type=markdown):
	// no raw HTML, no <details>, no emoji.
	ReviewBoardMarkdown string
	// JIRA is JIRA wiki markup.
	JIRA string
	// ShortJIRA is the shorter JIRA rendering, for the same reason.
	ShortJIRA string
	// Text is plain text with aligned columns (a mail's first part).
	Text string
	// HTML is a self-contained HTML rendering (a mail's second part).
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

// Target is a parsed --post destination: "github:OWNER/REPO#N",
// "jira:KEY-123", "reviewboard:ID" or "mail:ADDRESS[,ADDRESS][?cc=ADDRESS[,ADDRESS]]".
type Target struct {
	Venue string // "github", "jira", "reviewboard", "mail"
	Where string // the rest, as the venue reads it
}

func (t Target) String() string { return t.Venue + ":" + t.Where }

// ParseTarget splits a --post value into its venue and address.
func ParseTarget(s string) (Target, error) {
	venue, where, ok := strings.Cut(s, ":")
	if !ok || where == "" {
		return Target{}, fmt.Errorf("post target %q: want VENUE:ADDRESS, such as github:OWNER/REPO#N, jira:KEY-123, reviewboard:ID or mail:ADDRESS", s)
	}
	switch venue {
	case "github", "jira", "reviewboard", "mail":
	default:
		return Target{}, fmt.Errorf("post target %q: unknown venue %q (want github, jira, reviewboard or mail)", s, venue)
	}
	return Target{Venue: venue, Where: where}, nil
}

// Poster posts an answer to one venue. Posting the same Message.Key to the
// same place again edits the earlier answer. It returns a link to the post
// (a URL, or a Message-ID for mail).
type Poster interface {
	Post(ctx context.Context, where string, msg Message) (link string, err error)
}
