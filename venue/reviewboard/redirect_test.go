package reviewboard

import (
	"context"
	"testing"

	"github.com/perfbot/perfbot/venue/internal/wiretest"
)

// TestTokenNotSentAcrossRedirect: the token is set on each request, which
// net/http keeps on a redirect to a subdomain, so the client refuses any
// redirect off the site's origin, naming both hosts, and that host is never
// asked.
func TestTokenNotSentAcrossRedirect(t *testing.T) {
	wiretest.RedirectElsewhere(t, func(site string) error {
		c, err := New(Config{BaseURL: site, Token: "rb-secret"})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Check(context.Background())
		return err
	})
}
