package post

import (
	"fmt"

	"github.com/perfbot/perfbot/venue/gerrit"
	"github.com/perfbot/perfbot/venue/github"
	"github.com/perfbot/perfbot/venue/gitlab"
	"github.com/perfbot/perfbot/venue/jira"
	"github.com/perfbot/perfbot/venue/reviewboard"
)

// The venues' clients, for the intakes: an intake reads and replies
// through the client that posts, one per configured venue.

// GitHub is the configured GitHub client, or why there is none.
func (r *Router) GitHub() (*github.Client, error) { return client[*github.Client](r, "github") }

// GitLab is the configured GitLab client, or why there is none.
func (r *Router) GitLab() (*gitlab.Client, error) { return client[*gitlab.Client](r, "gitlab") }

// JIRA is the configured JIRA client, or why there is none.
func (r *Router) JIRA() (*jira.Client, error) { return client[*jira.Client](r, "jira") }

// ReviewBoard is the configured Review Board client, or why there is none.
func (r *Router) ReviewBoard() (*reviewboard.Client, error) {
	return client[*reviewboard.Client](r, "reviewboard")
}

// Gerrit is the configured Gerrit client, or why there is none.
func (r *Router) Gerrit() (*gerrit.Client, error) { return client[*gerrit.Client](r, "gerrit") }

// client is venue's client, or the reason it was not set up.
func client[C any](r *Router, venue string) (C, error) {
	var zero C
	if err, ok := r.errs[venue]; ok {
		return zero, err
	}
	c, ok := r.posters[venue].(C)
	if !ok {
		return zero, fmt.Errorf("%s is not configured", venue)
	}
	return c, nil
}
