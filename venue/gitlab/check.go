package gitlab

import (
	"context"
	"fmt"
	"net/http"

	"github.com/perfbot/perfbot/venue/retry"
)

// Check shows that the token works, with one authenticated read and no
// retry (GET /user), naming the account perfbot posts as and failing when
// venues.gitlab.login names another; then, when project ("GROUP/PROJECT") is set, reads
// the project, which the token must be able to see. It returns who perfbot
// is signed in as; errors never hold the token.
func (c *Client) Check(ctx context.Context, project string) (string, error) {
	me, err := c.Self(ctx)
	if err != nil {
		return "", retry.Redact(err, c.secrets()...)
	}
	who := "signed in as " + me
	if project == "" {
		return who, nil
	}
	path, err := c.Project(ctx, project)
	if err != nil {
		if StatusCode(err) == http.StatusNotFound {
			err = fmt.Errorf("gitlab: %s: not found, or not visible to this token", project)
		}
		return "", retry.Redact(err, c.secrets()...)
	}
	return fmt.Sprintf("%s; %s readable", who, path), nil
}
