package github

import (
	"context"
	"testing"

	"github.com/perfbot/perfbot/venue/internal/wiretest"
)

// TestTokenNotSentAcrossRedirect: go-github's token transport signs every
// request it sends, a redirected one too, so a redirect to another host is
// refused, naming both hosts, and that host is never asked.
func TestTokenNotSentAcrossRedirect(t *testing.T) {
	wiretest.RedirectElsewhere(t, func(site string) error {
		c, err := New(Config{BaseURL: site, Token: "ghp-secret"})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Self(context.Background())
		return err
	})
}
