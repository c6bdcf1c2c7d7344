package gitlab

import (
	"context"
	"errors"
	"fmt"
	"strings"

	gl "gitlab.com/gitlab-org/api/client-go"

	"github.com/perfbot/perfbot/venue"
)

// self asks GitLab who the token is (GET /user), once: perfbot's notes
// are the ones that account wrote. A configured Login must name the same
// account.
func (p *Poster) self(ctx context.Context) (string, error) {
	p.mu.Lock()
	me := p.me
	p.mu.Unlock()
	if me != "" {
		return me, nil
	}
	u, _, err := p.client.Users.CurrentUser(gl.WithContext(ctx))
	if err != nil {
		return "", classify(fmt.Errorf("gitlab: token (GET /user): %w", err))
	}
	if u.Username == "" {
		return "", errors.New("gitlab: GET /user named no username")
	}
	if p.login != "" && !strings.EqualFold(p.login, u.Username) {
		return "", &venue.LoginMismatchError{Venue: "gitlab", Configured: p.login, Actual: u.Username, How: "the token signs in as " + u.Username}
	}
	p.mu.Lock()
	p.me = u.Username
	p.mu.Unlock()
	return u.Username, nil
}

// Self returns the username perfbot's notes are written by, asking GitLab
// once (see Check).
func (p *Poster) Self(ctx context.Context) (string, error) { return p.self(ctx) }
