package doctor

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/config"
)

func parse(t *testing.T, yaml string) *config.Config {
	t.Helper()
	cfg, err := config.Parse([]byte(yaml), "config.yaml")
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	return cfg
}

func envOf(m map[string]string) Options {
	return Options{Getenv: func(k string) string { return m[k] }}
}

func byName(rs []Result) map[string]Result {
	out := map[string]Result{}
	for _, r := range rs {
		out[r.Name] = r
	}
	return out
}

func webVenues(f *fakeVenues) string {
	return `venues:
  github: {repo: acme/store, url: ` + f.srv.URL + `/api/v3/, token_env: T_GH}
  jira: {url: ` + f.srv.URL + `, user: perfbot, token_env: T_JIRA, deployment: server}
  reviewboard: {url: ` + f.srv.URL + `, token_env: T_RB}
`
}

func TestVenuesSignIn(t *testing.T) {
	f := newFakeVenues(t)
	cfg := parse(t, webVenues(f))
	rs := Venues(context.Background(), cfg, envOf(map[string]string{"T_GH": f.ghToken, "T_JIRA": f.jiraToken, "T_RB": f.rbToken}))
	got := byName(rs)
	want := map[string]string{
		"github":      "signed in as perfbot-ci; acme/store readable",
		"jira":        "signed in as Perf Bot (perfbot)",
		"reviewboard": "signed in as perfbot",
	}
	if len(rs) != len(want) {
		t.Errorf("results = %+v, want %d", rs, len(want))
	}
	for name, reason := range want {
		if r := got[name]; r.Status != OK || r.Reason != reason {
			t.Errorf("%s = %v %q, want ok %q", name, r.Status, r.Reason, reason)
		}
	}
	if Failed(rs) {
		t.Error("Failed = true")
	}
	for _, req := range []string{"GET /api/v3/user", "GET /api/v3/repos/acme/store", "GET /rest/api/2/myself", "GET /api/session/"} {
		if !slices.Contains(f.requests, req) {
			t.Errorf("requests %q lack %s", f.requests, req)
		}
	}
	if len(f.requests) != 4 {
		t.Errorf("requests = %q, want one read per venue and the repository", f.requests)
	}
}

func TestVenuesBadCredentialsFail(t *testing.T) {
	f := newFakeVenues(t)
	cfg := parse(t, webVenues(f))
	bad := map[string]string{"T_GH": "ghp_revokedtoken98765", "T_JIRA": "expired-jira-token-42", "T_RB": "wrongrbtoken424242"}
	rs := Venues(context.Background(), cfg, envOf(bad))
	got := byName(rs)
	for name, want := range map[string]string{"github": "401 Bad credentials", "jira": "401", "reviewboard": "Login failed"} {
		r := got[name]
		if r.Status != Fail || !strings.Contains(r.Reason, want) {
			t.Errorf("%s = %v %q, want FAIL with %q", name, r.Status, r.Reason, want)
		}
	}
	if !Failed(rs) {
		t.Error("Failed = false")
	}
	for _, r := range rs {
		for _, secret := range bad {
			if strings.Contains(r.Reason, secret) {
				t.Errorf("%s reason %q holds a secret", r.Name, r.Reason)
			}
		}
	}
}

func TestVenuesMissingCredentialsSaySo(t *testing.T) {
	f := newFakeVenues(t)
	cfg := parse(t, `venues:
  github: {repo: acme/store, url: `+f.srv.URL+`/api/v3/, token_env: T_GH, webhook_secret_env: T_HOOK}
  reviewboard: {url: `+f.srv.URL+`, token_env: T_RB}
`)
	got := byName(Venues(context.Background(), cfg, envOf(nil)))
	for name, want := range map[string]string{
		"github":         "no token in $T_GH",
		"github webhook": "venues.github.webhook_secret_env names $T_HOOK, which is empty",
		"reviewboard":    "no API token in $T_RB",
	} {
		if r := got[name]; r.Status != Fail || !strings.Contains(r.Reason, want) {
			t.Errorf("%s = %v %q, want FAIL with %q", name, r.Status, r.Reason, want)
		}
	}
	if len(f.requests) != 0 {
		t.Errorf("requests without credentials: %q", f.requests)
	}
}

func TestNoVenueWarns(t *testing.T) {
	rs := Venues(context.Background(), parse(t, "project: {repo: .}\n"), envOf(nil))
	if len(rs) != 1 || rs[0].Status != Warn || !strings.Contains(rs[0].Reason, "no venue is configured") {
		t.Errorf("results = %+v, want one warning that no venue is configured", rs)
	}
	if Failed(rs) {
		t.Error("Failed = true for a config without venues")
	}
}

func TestGitHubRepoNotVisibleFails(t *testing.T) {
	f := newFakeVenues(t)
	cfg := parse(t, "venues:\n  github: {repo: acme/other, url: "+f.srv.URL+"/api/v3/, token_env: T_GH}\n")
	r := byName(Venues(context.Background(), cfg, envOf(map[string]string{"T_GH": f.ghToken})))["github"]
	if r.Status != Fail || !strings.Contains(r.Reason, "acme/other: not found, or not visible") {
		t.Errorf("github = %v %q, want FAIL: repository not visible", r.Status, r.Reason)
	}
}

// writeKey writes a new RSA key as the PEM file of a GitHub App.
func writeKey(t *testing.T) (*rsa.PrivateKey, string) {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "app.pem")
	data := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return key, file
}

func TestGitHubAppSignsInAndMintsToken(t *testing.T) {
	f := newFakeVenues(t)
	key, file := writeKey(t)
	f.appKey = &key.PublicKey
	cfg := parse(t, "venues:\n  github: {repo: acme/store, url: "+f.srv.URL+"/api/v3/, app_id: \"4242\", installation_id: 77, private_key_file: "+file+"}\n")
	r := byName(Venues(context.Background(), cfg, Options{Getenv: func(string) string { return "" }}))["github"]
	want := "GitHub App perfbot-app (id 4242), installation 77: token minted; posts as perfbot-app[bot]; acme/store readable"
	if r.Status != OK || r.Reason != want {
		t.Errorf("github = %v %q, want ok %q", r.Status, r.Reason, want)
	}
	wantReqs := []string{"GET /api/v3/app", "POST /api/v3/app/installations/77/access_tokens", "GET /api/v3/repos/acme/store"}
	if !slices.Equal(f.requests, wantReqs) {
		t.Errorf("requests = %q, want %q", f.requests, wantReqs)
	}
	if last := f.auths[len(f.auths)-1]; last != "Bearer "+f.appToken {
		t.Errorf("repository read with %q, want the installation token", last)
	}

	// A key the app does not know: GitHub cannot decode the JWT.
	other, _ := writeKey(t)
	f.appKey = &other.PublicKey
	f.requests = nil
	r = byName(Venues(context.Background(), cfg, Options{Getenv: func(string) string { return "" }}))["github"]
	if r.Status != Fail || !strings.Contains(r.Reason, "401") || !strings.Contains(r.Reason, "app 4242") {
		t.Errorf("github with a wrong key = %v %q, want FAIL 401 naming the app", r.Status, r.Reason)
	}
}

func TestWriteChecklist(t *testing.T) {
	var b strings.Builder
	err := Write(&b, []Result{
		{Name: "config", Status: Fail, Reason: "c.yaml: 2 errors", Details: []string{"c.yaml:1:1: a", "c.yaml:2:1: b"}},
		{Name: "git", Status: OK, Reason: "git version 2.39.5"},
		{Name: "valgrind", Status: Warn, Reason: "not installed;\nnot needed"},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := `FAIL  config         c.yaml: 2 errors
      c.yaml:1:1: a
      c.yaml:2:1: b
ok    git            git version 2.39.5
warn  valgrind       not installed; not needed
`
	if b.String() != want {
		t.Errorf("checklist:\n%s\nwant:\n%s", b.String(), want)
	}
}

// TestVenuesLoginMismatch: a venues.github.login that is not the token's
// account fails the check, naming both, and is marked as the
// configuration's mistake, on which serve refuses to start.
func TestVenuesLoginMismatch(t *testing.T) {
	f := newFakeVenues(t)
	cfg := parse(t, `venues:
  github: {repo: acme/store, url: `+f.srv.URL+`/api/v3/, token_env: T_GH, login: perfbot-old}
`)
	rs := Venues(context.Background(), cfg, envOf(map[string]string{"T_GH": f.ghToken}))
	r := byName(rs)["github"]
	if r.Status != Fail || !r.Misconfigured || !strings.Contains(r.Reason, `venues.github.login is "perfbot-old", but the token signs in as perfbot-ci`) {
		t.Errorf("github = %+v", r)
	}
}
