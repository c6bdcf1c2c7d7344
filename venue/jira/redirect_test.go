package jira

import (
	"context"
	"testing"

	"github.com/perfbot/perfbot/venue/internal/wiretest"
)

// TestCredentialsNotSentAcrossRedirect: go-jira's auth transports sign
// every request they send, a redirected one too, so the API client refuses
// a redirect to another host, naming both hosts, and that host is never
// asked.
func TestCredentialsNotSentAcrossRedirect(t *testing.T) {
	for _, cfg := range []Config{{User: "perfbot", Token: "api-secret"}, {PAT: "pat-secret"}} {
		wiretest.RedirectElsewhere(t, func(site string) error {
			cfg.BaseURL, cfg.Deployment = site, Server
			c, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Check(context.Background())
			return err
		})
	}
}
