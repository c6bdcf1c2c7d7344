package reviewboard

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/perfbot/perfbot/review/retry"
)

// Check shows that the API token works with one authenticated read and no
// retry: GET /api/session/, which says whether the request was signed in
// and links to the user. It returns who perfbot is signed in as; errors
// never hold the token.
func (c *Client) Check(ctx context.Context) (string, error) {
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
	who := rsp.Session.Links.User.Title
	if who == "" {
		who = "an unnamed user"
	}
	return "signed in as " + who, nil
}
