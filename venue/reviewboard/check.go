package reviewboard

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/perfbot/perfbot/venue/retry"
)

// Check shows that the API token works with one authenticated read and no
// retry: GET /api/session/, which says whether the request was signed in
// and links to the user. It returns who perfbot is signed in as, the
// account whose reviews it takes for its own; errors never hold the token.
func (c *Client) Check(ctx context.Context) (string, error) {
	who, err := c.session(ctx)
	if err != nil {
		return "", err
	}
	if who == "" {
		who = "an unnamed user"
	}
	return "signed in as " + who, nil
}

// self is the user the token signs in as (GET /api/session/), asked once
// and under the retry policy: perfbot's reviews are the ones it wrote.
func (c *Client) self(ctx context.Context) (string, error) {
	c.mu.Lock()
	me := c.me
	c.mu.Unlock()
	if me != "" {
		return me, nil
	}
	err := c.retry.Do(ctx, "who am I", func(ctx context.Context) error {
		var err error
		me, err = c.session(ctx)
		return err
	})
	if err != nil {
		return "", retry.Redact(err, c.token)
	}
	if me == "" {
		return "", errors.New("reviewboard: GET /api/session/ names no user: perfbot cannot tell its own reviews")
	}
	c.mu.Lock()
	c.me = me
	c.mu.Unlock()
	return me, nil
}

// session reads GET /api/session/: the signed-in user's name.
func (c *Client) session(ctx context.Context) (string, error) {
	var rsp struct {
		Session struct {
			Authenticated bool `json:"authenticated"`
			Links         struct {
				User link `json:"user"`
			} `json:"links"`
		} `json:"session"`
	}
	if err := c.do(ctx, http.MethodGet, "api/session/", nil, &rsp); err != nil {
		return "", retry.Redact(fmt.Errorf("reviewboard: %w", err), c.token)
	}
	if !rsp.Session.Authenticated {
		return "", errors.New("reviewboard: GET /api/session/: the site does not take the API token (authenticated: false)")
	}
	return rsp.Session.Links.User.Title, nil
}
