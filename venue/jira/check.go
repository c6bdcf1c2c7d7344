package jira

import (
	"context"
	"fmt"
	"net/http"

	"github.com/perfbot/perfbot/venue/retry"
)

// Check shows that the credentials work with one authenticated read and no
// retry: GET /rest/api/2/myself, which JIRA never answers anonymously. It
// returns who perfbot is signed in as; errors never hold a secret.
func (c *Client) Check(ctx context.Context) (string, error) {
	var me struct {
		Name        string `json:"name"`
		AccountID   string `json:"accountId"`
		DisplayName string `json:"displayName"`
	}
	req, err := c.api.NewRequestWithContext(ctx, http.MethodGet, "rest/api/2/myself", nil)
	if err != nil {
		return "", err
	}
	if err := c.do(req, &me); err != nil {
		return "", retry.Redact(fmt.Errorf("jira: %w", err), c.secrets...)
	}
	who := me.Name
	if who == "" {
		who = me.AccountID
	}
	if me.DisplayName != "" && me.DisplayName != who {
		who = fmt.Sprintf("%s (%s)", me.DisplayName, who)
	}
	if who == "" {
		return "", fmt.Errorf("jira: GET /rest/api/2/myself: no user in the answer")
	}
	return "signed in as " + who, nil
}
