package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	gh "github.com/google/go-github/v60/github"

	"github.com/perfbot/perfbot/venue"
)

// identity is the account perfbot's comments are written by: the token's
// user, or a GitHub App's bot user "<slug>[bot]".
type identity struct {
	login string
	// appID is the App's id (0 with a token), which narrows the check
	// runs perfbot takes for its own.
	appID int64
	// how says where the login came from, for errors; app names the App
	// ("perfbot (id 123)").
	how, app string
}

// self asks GitHub who perfbot is, once: GET /app with the App's JWT (the
// bot user is the App's slug with "[bot]"), or GET /user with a token. A
// configured Login must name the same account. A token that is not a
// user's (a workflow's GITHUB_TOKEN, an installation token) cannot ask,
// so Login is taken as is for it, and is required.
func (p *Client) self(ctx context.Context) (identity, error) {
	p.mu.Lock()
	me := p.me
	p.mu.Unlock()
	if me.login != "" {
		return me, nil
	}
	me, err := p.askSelf(ctx)
	if err != nil {
		return identity{}, err
	}
	if p.login != "" && !strings.EqualFold(p.login, me.login) {
		return identity{}, &venue.LoginMismatchError{Venue: "github", Configured: p.login, Actual: me.login, How: me.how}
	}
	p.mu.Lock()
	p.me = me
	p.mu.Unlock()
	return me, nil
}

func (p *Client) askSelf(ctx context.Context) (identity, error) {
	if p.app != nil {
		app, _, err := p.app.jwtc.Apps.Get(ctx, "")
		if err != nil {
			return identity{}, classify(fmt.Errorf("github: app %s (GET /app, signed with the private key): %w", p.app.app.ID, err))
		}
		if app.GetSlug() == "" {
			return identity{}, fmt.Errorf("github: app %s: GET /app named no slug", p.app.app.ID)
		}
		login := app.GetSlug() + "[bot]"
		return identity{login: login, appID: app.GetID(), how: fmt.Sprintf("GitHub App %s (id %d) posts as %s", app.GetSlug(), app.GetID(), login),
			app: fmt.Sprintf("%s (id %d)", app.GetSlug(), app.GetID())}, nil
	}
	u, _, err := p.client.Users.Get(ctx, "")
	if err != nil {
		var er *gh.ErrorResponse
		// A workflow's GITHUB_TOKEN or an installation token is not a
		// user: GitHub answers 403 "Resource not accessible by
		// integration", and nothing else says whose it is.
		if errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusForbidden &&
			strings.Contains(er.Message, "integration") {
			if p.login == "" {
				return identity{}, errors.New("github: the token is an integration's (a workflow's GITHUB_TOKEN or an App installation token), which GET /user does not name: set venues.github.login to the account its comments appear under (github-actions[bot] for a workflow's GITHUB_TOKEN)")
			}
			return identity{login: p.login, how: fmt.Sprintf("the integration token posts as %s (venues.github.login; GET /user does not name an integration's account)", p.login)}, nil
		}
		return identity{}, classify(fmt.Errorf("github: token (GET /user): %w", err))
	}
	if u.GetLogin() == "" {
		return identity{}, errors.New("github: GET /user named no login")
	}
	return identity{login: u.GetLogin(), how: "the token signs in as " + u.GetLogin()}, nil
}

// Self returns the login perfbot's comments are written by, asking GitHub
// once (see Check).
func (p *Client) Self(ctx context.Context) (string, error) {
	me, err := p.self(ctx)
	if err != nil {
		return "", err
	}
	return me.login, nil
}
