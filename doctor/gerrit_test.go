package doctor

import (
	"context"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/internal/fake/gerritfake"
)

// TestGerritSignIn checks the Gerrit account with GET /a/accounts/self:
// the right HTTP password signs in, a wrong one fails without showing it.
func TestGerritSignIn(t *testing.T) {
	f := gerritfake.New(t)
	cfg := parse(t, "venues:\n  gerrit: {url: "+f.URL+", user: perfbot, password_env: T_GERRIT}\n")
	got := byName(Venues(context.Background(), cfg, envOf(map[string]string{"T_GERRIT": f.Password})))
	if r := got["gerrit"]; r.Status != OK || r.Reason != "signed in as perfbot" {
		t.Errorf("gerrit = %v %q", r.Status, r.Reason)
	}
	got = byName(Venues(context.Background(), cfg, envOf(map[string]string{"T_GERRIT": "wrong-password-0123"})))
	if r := got["gerrit"]; r.Status != Fail || !strings.Contains(r.Reason, "401") || strings.Contains(r.Reason, "wrong-password") {
		t.Errorf("wrong password: %v %q", r.Status, r.Reason)
	}
	got = byName(Venues(context.Background(), cfg, envOf(nil)))
	if r := got["gerrit"]; r.Status != Fail || !strings.Contains(r.Reason, "no HTTP password in $T_GERRIT") {
		t.Errorf("no password: %v %q", r.Status, r.Reason)
	}
}
