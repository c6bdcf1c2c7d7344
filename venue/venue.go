// Package venue holds what every venue client shares: the Poster
// interface (the destination is a target.Target) and the helpers below.
// The answer itself is answer.Answer; each client posts the format its
// venue reads. The clients
// live below it: venue/github, venue/gitlab, venue/jira, venue/reviewboard,
// venue/gerrit and venue/mail.
package venue

import (
	"context"
	"fmt"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/target"
)

// Poster posts an answer to one venue. Posting the same answer Key to the
// same place again edits the earlier answer. It returns a link to the post
// (a URL, or a Message-ID for mail).
type Poster interface {
	Post(ctx context.Context, to target.Target, msg answer.Answer) (link string, err error)
}

// LoginMismatchError says that a configured login (venues.VENUE.login) is
// not the account the credentials sign in as: perfbot would take none of
// its own comments for its answers. It is the configuration's mistake,
// never the venue's being unreachable.
type LoginMismatchError struct {
	Venue      string // "github", "gitlab"
	Configured string // venues.VENUE.login
	Actual     string // whom the credentials sign in as
	How        string // how that was found ("the token signs in as x")
}

func (e *LoginMismatchError) Error() string {
	return fmt.Sprintf("%s: venues.%s.login is %q, but %s: perfbot posts as %q and would find none of its own comments; set login to %q or remove it",
		e.Venue, e.Venue, e.Configured, e.How, e.Actual, e.Actual)
}
