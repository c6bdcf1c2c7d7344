package gitlab

import (
	"context"
	"testing"

	"github.com/perfbot/perfbot/venue/internal/wiretest"
)

// TestTokenNotSentAcrossRedirect: client-go sends the token in a
// Private-Token header, which net/http keeps on a redirect to another host,
// so such a redirect is refused, naming both hosts, and that host is never
// asked.
func TestTokenNotSentAcrossRedirect(t *testing.T) {
	wiretest.RedirectElsewhere(t, func(site string) error {
		c, err := New(Config{BaseURL: site, Token: "glpat-secret"})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Self(context.Background())
		return err
	})
}
