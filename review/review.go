// Package review holds what every venue client shares: the destination an
// answer goes to and the Poster interface. The answer itself is
// answer.Answer; Message, State and Attachment are its former names here.
// The clients themselves live in review/github, review/jira,
// review/reviewboard and mail.
package review

import (
	"context"
	"fmt"
	"strings"

	"github.com/perfbot/perfbot/answer"
)

// Message is one job's answer, rendered for every format. It is
// answer.Answer under its former name, kept while callers move over.
type Message = answer.Answer

// State is the outcome shown by venues that have one (answer.State).
type State = answer.State

// States of a posted answer, as in package answer.
const (
	StateSuccess   = answer.StateSuccess
	StateFailure   = answer.StateFailure
	StateError     = answer.StateError
	StatePending   = answer.StatePending
	StateQueued    = answer.StateQueued
	StateCancelled = answer.StateCancelled
)

// Attachment is a file sent with an answer (answer.Attachment).
type Attachment = answer.Attachment

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
