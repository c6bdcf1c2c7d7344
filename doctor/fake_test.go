package doctor

import (
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// fakeVenues serves the reads the venue checks make, with the documented
// request and answer shapes: GitHub's GET /app (app JWT), POST
// /app/installations/{id}/access_tokens, GET /user and GET
// /repos/{owner}/{repo} under /api/v3 (GitHub Enterprise), JIRA's GET
// /rest/api/2/myself (basic auth) and Review Board's GET /api/session/
// (Authorization: token T). Wrong credentials get each venue's 401.
type fakeVenues struct {
	srv *httptest.Server

	ghToken   string         // accepted personal token
	appKey    *rsa.PublicKey // verifies app JWTs
	appToken  string         // installation token handed out
	jiraUser  string
	jiraToken string
	rbToken   string

	mu       sync.Mutex
	requests []string
	auths    []string // every Authorization header received
}

func newFakeVenues(t *testing.T) *fakeVenues {
	f := &fakeVenues{ghToken: "ghp_goodtoken0123456789", appToken: "ghs_installation0123456789",
		jiraUser: "perfbot", jiraToken: "jira-token-0123456789", rbToken: "rbtoken0123456789abcdef"}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v3/app", f.getApp)
	mux.HandleFunc("POST /api/v3/app/installations/{id}/access_tokens", f.accessToken)
	mux.HandleFunc("GET /api/v3/user", f.github(f.getUser))
	mux.HandleFunc("GET /api/v3/repos/{owner}/{repo}", f.github(f.getRepo))
	mux.HandleFunc("GET /rest/api/2/myself", f.myself)
	mux.HandleFunc("GET /api/session/", f.session)
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.requests = append(f.requests, r.Method+" "+r.URL.Path)
		f.auths = append(f.auths, r.Header.Get("Authorization"))
		f.mu.Unlock()
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func badCredentials(w http.ResponseWriter) {
	writeJSON(w, http.StatusUnauthorized, map[string]string{"message": "Bad credentials",
		"documentation_url": "https://docs.github.com/rest", "status": "401"})
}

// github accepts the personal token or the installation token.
func (f *fakeVenues) github(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		got := r.Header.Get("Authorization")
		if got != "Bearer "+f.ghToken && got != "Bearer "+f.appToken {
			badCredentials(w)
			return
		}
		h(w, r)
	}
}

// validJWT checks an RS256 app JWT against the app's public key.
func (f *fakeVenues) validJWT(r *http.Request) bool {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	parts := strings.Split(tok, ".")
	if !ok || f.appKey == nil || len(parts) != 3 {
		return false
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return false
	}
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	return rsa.VerifyPKCS1v15(f.appKey, crypto.SHA256, sum[:], sig) == nil
}

// getApp is GET /app: the app the JWT names.
func (f *fakeVenues) getApp(w http.ResponseWriter, r *http.Request) {
	if !f.validJWT(r) {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"message": "A JSON web token could not be decoded",
			"documentation_url": "https://docs.github.com/rest"})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": 4242, "slug": "perfbot-app", "node_id": "MDM6QXBwNDI0Mg==",
		"name": "perfbot", "owner": map[string]any{"login": "acme", "id": 1, "type": "Organization"},
		"html_url": "https://github.com/apps/perfbot-app", "created_at": "2026-11-01T00:00:00Z", "updated_at": "2026-11-01T00:00:00Z",
		"permissions": map[string]string{"issues": "write", "pull_requests": "write", "checks": "write", "metadata": "read"},
		"events":      []string{"issue_comment", "check_run"}, "installations_count": 1})
}

// accessToken is POST /app/installations/{id}/access_tokens: 201 with a
// token for installation 77.
func (f *fakeVenues) accessToken(w http.ResponseWriter, r *http.Request) {
	if !f.validJWT(r) {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"message": "A JSON web token could not be decoded"})
		return
	}
	if r.PathValue("id") != "77" {
		writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found", "documentation_url": "https://docs.github.com/rest/apps/apps#create-an-installation-access-token-for-an-app"})
		return
	}
	writeJSON(w, http.StatusCreated, map[string]any{"token": f.appToken, "expires_at": "2099-01-01T00:00:00Z",
		"permissions": map[string]string{"issues": "write"}, "repository_selection": "selected"})
}

// getUser is GET /user: the token's user; an installation token is not a
// user (403 "Resource not accessible by integration").
func (f *fakeVenues) getUser(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") == "Bearer "+f.appToken {
		writeJSON(w, http.StatusForbidden, map[string]string{"message": "Resource not accessible by integration",
			"documentation_url": "https://docs.github.com/rest/users/users#get-the-authenticated-user", "status": "403"})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"login": "perfbot-ci", "id": 583231, "type": "User", "site_admin": false})
}

// getRepo is GET /repos/{owner}/{repo}: only acme/store exists.
func (f *fakeVenues) getRepo(w http.ResponseWriter, r *http.Request) {
	if r.PathValue("owner") != "acme" || r.PathValue("repo") != "store" {
		writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found",
			"documentation_url": "https://docs.github.com/rest/repos/repos#get-a-repository", "status": "404"})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": 1296269, "name": "store", "full_name": "acme/store", "private": false,
		"owner": map[string]any{"login": "acme"}, "permissions": map[string]bool{"admin": false, "push": true, "pull": true}})
}

// myself is JIRA's GET /rest/api/2/myself; without valid basic auth, 401.
func (f *fakeVenues) myself(w http.ResponseWriter, r *http.Request) {
	u, p, ok := r.BasicAuth()
	if !ok || u != f.jiraUser || p != f.jiraToken {
		writeJSON(w, http.StatusUnauthorized, map[string]any{"errorMessages": []string{"You are not authenticated. Authentication required to perform this operation."}, "errors": map[string]string{}})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"self": f.srv.URL + "/rest/api/2/user?username=perfbot", "key": "JIRAUSER10100",
		"name": "perfbot", "emailAddress": "perfbot@example.org", "displayName": "Perf Bot", "active": true, "timeZone": "UTC"})
}

// session is Review Board's GET /api/session/: a bad token is 401 with
// error 104; no token at all is an anonymous session.
func (f *fakeVenues) session(w http.ResponseWriter, r *http.Request) {
	auth := r.Header.Get("Authorization")
	switch {
	case auth == "":
		writeJSON(w, http.StatusOK, map[string]any{"stat": "ok", "session": map[string]any{"authenticated": false,
			"links": map[string]any{"self": map[string]string{"href": f.srv.URL + "/api/session/", "method": "GET"}}}})
	case auth != "token "+f.rbToken:
		w.Header().Set("WWW-Authenticate", `Basic realm="Web API"`)
		writeJSON(w, http.StatusUnauthorized, map[string]any{"stat": "fail", "err": map[string]any{"code": 104, "msg": "Login failed"}})
	default:
		writeJSON(w, http.StatusOK, map[string]any{"stat": "ok", "session": map[string]any{"authenticated": true,
			"links": map[string]any{
				"self":   map[string]string{"href": f.srv.URL + "/api/session/", "method": "GET"},
				"delete": map[string]string{"href": f.srv.URL + "/api/session/", "method": "DELETE"},
				"user":   map[string]string{"href": f.srv.URL + "/api/users/perfbot/", "method": "GET", "title": "perfbot"},
			}}})
	}
}
