package post

import (
	"context"
	"fmt"

	"github.com/perfbot/perfbot/venue/github"
	"github.com/perfbot/perfbot/venue/gitlab"
)

// Check shows that venue's credentials work with one authenticated read
// (see the venues' Check methods) and returns who perfbot is signed in as.
// A venue that is not set up fails with the reason; errors never hold a
// secret.
func (r *Router) Check(ctx context.Context, venue string) (string, error) {
	p, ok := r.posters[venue]
	if !ok {
		return "", r.Configured(venue)
	}
	switch p := p.(type) {
	case *github.Client:
		return p.Check(ctx, r.github.Repo)
	case *gitlab.Client:
		return p.Check(ctx, r.gitlab.Project)
	case interface {
		Check(context.Context) (string, error)
	}:
		return p.Check(ctx)
	}
	return "", fmt.Errorf("venue %q has no credential check", venue)
}
