package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	gh "github.com/google/go-github/v60/github"

	"github.com/perfbot/perfbot/venue/retry"
)

// Check shows that the credentials work, with one authenticated read each
// and no retry: as a GitHub App, GET /app signed with the app's JWT and an
// installation token minted; with a token, GET /user. It names the
// account perfbot posts as, and fails when venues.github.login names
// another. When repo
// ("OWNER/REPO") is set it then reads the repository, which the
// installation or token must be able to see. It returns who perfbot is
// signed in as; errors never hold a secret.
func (p *Client) Check(ctx context.Context, repo string) (string, error) {
	who, err := p.whoAmI(ctx)
	if err != nil {
		return "", retry.Redact(err, p.secrets()...)
	}
	if repo == "" {
		return who, nil
	}
	owner, name, ok := strings.Cut(repo, "/")
	if !ok || owner == "" || name == "" {
		return "", fmt.Errorf("github: repository %q: want OWNER/REPO", repo)
	}
	r, _, err := p.client.Repositories.Get(ctx, owner, name)
	if err != nil {
		var er *gh.ErrorResponse
		if errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusNotFound {
			err = fmt.Errorf("github: %s: not found, or not visible to these credentials (is the app installed on it, or does the token have access?)", repo)
		}
		return "", retry.Redact(err, p.secrets()...)
	}
	return fmt.Sprintf("%s; %s readable", who, r.GetFullName()), nil
}

// whoAmI makes the one authenticated read of Check and says whom perfbot
// posts as: GET /app with the App's JWT, and an installation token minted;
// or GET /user with a token.
func (p *Client) whoAmI(ctx context.Context) (string, error) {
	me, err := p.self(ctx)
	if err != nil {
		return "", err
	}
	if p.app != nil {
		if _, err := p.app.installationToken(ctx); err != nil {
			return "", err
		}
		return fmt.Sprintf("GitHub App %s, installation %d: token minted; posts as %s", me.app, p.app.app.InstallationID, me.login), nil
	}
	if me.how != "the token signs in as "+me.login {
		return me.how, nil
	}
	return "signed in as " + me.login, nil
}
