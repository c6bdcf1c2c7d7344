package gitlab

import (
	"context"
	"errors"
	"fmt"
	"strings"

	gl "gitlab.com/gitlab-org/api/client-go"

	"github.com/perfbot/perfbot/venue"
)

// Self asks GitLab who the token is (GET /user), once: perfbot's notes
// are the ones that account wrote. A configured Login must name the same
// account (see Check).
func (c *Client) Self(ctx context.Context) (string, error) {
	c.mu.Lock()
	me := c.me
	c.mu.Unlock()
	if me != "" {
		return me, nil
	}
	u, _, err := c.api.Users.CurrentUser(gl.WithContext(ctx))
	if err != nil {
		return "", classify(fmt.Errorf("gitlab: token (GET /user): %w", err))
	}
	if u.Username == "" {
		return "", errors.New("gitlab: GET /user named no username")
	}
	if c.login != "" && !strings.EqualFold(c.login, u.Username) {
		return "", &venue.LoginMismatchError{Venue: "gitlab", Configured: c.login, Actual: u.Username, How: "the token signs in as " + u.Username}
	}
	c.mu.Lock()
	c.me = u.Username
	c.mu.Unlock()
	return u.Username, nil
}
