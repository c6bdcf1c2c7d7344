// Package githubfake is a fake GitHub REST API for tests: the endpoints
// perfbot's GitHub client uses (issue comments, pull requests, commit
// statuses, check runs, the signed-in user, a GitHub App's installation
// tokens), under a GitHub Enterprise Server's /api/v3 prefix, with GitHub's
// documented methods, status codes, headers, limits and JSON shapes.
// Review/github's tests and the GitHub Action's tests both use it.
package githubfake

import (
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// GitHub's documented limits.
const (
	// CommentLimit is the longest issue comment body, in characters.
	CommentLimit = 65536
	// StatusDescriptionLimit is the longest commit status description.
	StatusDescriptionLimit = 140
	// CheckSummaryLimit is the longest check run output summary.
	CheckSummaryLimit = 65535
)

// The App the fake knows: its id (the JWT's issuer) and the one
// installation that mints tokens.
const (
	AppID          = "12345"
	InstallationID = "99"
)

// Head is the head commit of pull request 7, which New creates.
const Head = "6dcb09b5b57875f334f61aebed695e2e4193db5e"

// Server is a fake GitHub. Its fields may be set before requests are sent
// and read after their answers came back; hold Mu while the client may
// still be sending.
type Server struct {
	t   testing.TB
	srv *httptest.Server

	// Token is the accepted token ("Authorization: Bearer" or "token").
	Token string
	// AppKey verifies App JWTs; when set, the accepted token is AppToken,
	// the installation token handed out.
	AppKey   *rsa.PublicKey
	AppToken string
	// Login is the author of the comments created, and GET /user's login.
	Login string
	// Slug is the App's slug (GET /app).
	Slug string
	// Integration makes the token a workflow's GITHUB_TOKEN: GET /user
	// answers 403 "Resource not accessible by integration", as GitHub does.
	Integration bool
	// EchoAuth adds the Authorization header received to a 401's message,
	// as a server that leaks it would (for tests that check the client
	// does not repeat it).
	EchoAuth bool
	// ChecksDenied answers check run writes as GitHub answers a personal
	// access token.
	ChecksDenied bool

	Mu sync.Mutex
	// Heads are the open pull requests: number -> head commit.
	Heads map[int]string
	// Comments are the issue comments, oldest first.
	Comments []Comment
	// Statuses are the commit statuses created, as sent, with "sha".
	Statuses []map[string]any
	// CheckRuns are the check runs created, as GitHub answers them, oldest
	// first.
	CheckRuns []map[string]any
	// Fail are answers served, in order, before the real ones.
	Fail []func(w http.ResponseWriter)
	// Requests are "METHOD PATH" of every request to the REST API but the
	// App's own (JWT) ones.
	Requests []string
	// Tokens counts the installation tokens minted.
	Tokens int

	nextID int64
}

// Comment is an issue comment.
type Comment struct {
	ID    int64
	Issue int
	Body  string
	User  string
	Edits int
}

// New starts a fake GitHub that accepts token, with pull request 7 open at
// Head; it stops when the test ends.
func New(t testing.TB, token string) *Server {
	s := &Server{t: t, Token: token, Login: "perfbot-ci", Slug: "perfbot", Heads: map[int]string{7: Head}, nextID: 1000}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v3/repos/{owner}/{repo}/issues/{n}/comments", s.auth(s.listComments))
	mux.HandleFunc("POST /api/v3/repos/{owner}/{repo}/issues/{n}/comments", s.auth(s.createComment))
	mux.HandleFunc("PATCH /api/v3/repos/{owner}/{repo}/issues/comments/{id}", s.auth(s.editComment))
	mux.HandleFunc("GET /api/v3/repos/{owner}/{repo}/pulls/{n}", s.auth(s.getPull))
	mux.HandleFunc("POST /api/v3/repos/{owner}/{repo}/statuses/{sha}", s.auth(s.createStatus))
	mux.HandleFunc("GET /api/v3/repos/{owner}/{repo}/commits/{ref}/check-runs", s.auth(s.listCheckRuns))
	mux.HandleFunc("POST /api/v3/repos/{owner}/{repo}/check-runs", s.auth(s.createCheckRun))
	mux.HandleFunc("PATCH /api/v3/repos/{owner}/{repo}/check-runs/{id}", s.auth(s.updateCheckRun))
	mux.HandleFunc("POST /api/v3/app/installations/{id}/access_tokens", s.accessToken)
	mux.HandleFunc("GET /api/v3/user", s.auth(s.user))
	mux.HandleFunc("GET /api/v3/app", s.getApp)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("fake GitHub: unexpected %s %s", r.Method, r.URL.Path)
		NotFound(w)
	})
	s.srv = httptest.NewServer(mux)
	t.Cleanup(s.srv.Close)
	return s
}

// URL is the server's base URL with a trailing slash, as a GitHub
// Enterprise Server's web address ("https://github.example/").
func (s *Server) URL() string { return s.srv.URL + "/" }

// APIURL is the REST API's URL, GITHUB_API_URL's form on GitHub
// Enterprise Server.
func (s *Server) APIURL() string { return s.srv.URL + "/api/v3" }

// HTTPServer is the underlying server, for wrapping its handler.
func (s *Server) HTTPServer() *httptest.Server { return s.srv }

// Snapshot copies the comments, the check runs and the requests that
// change something ("METHOD PATH").
func (s *Server) Snapshot() (comments []Comment, checkRuns []map[string]any, writes []string) {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	for _, c := range s.CheckRuns {
		run := make(map[string]any, len(c))
		for k, v := range c {
			run[k] = v
		}
		checkRuns = append(checkRuns, run)
	}
	for _, r := range s.Requests {
		if !strings.HasPrefix(r, http.MethodGet+" ") {
			writes = append(writes, r)
		}
	}
	return append([]Comment(nil), s.Comments...), checkRuns, writes
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func notFoundDoc(w http.ResponseWriter, doc string) {
	writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found", "documentation_url": doc})
}

func (s *Server) auth(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.t.Logf("fake GitHub: %s %s", r.Method, r.URL)
		s.Mu.Lock()
		s.Requests = append(s.Requests, r.Method+" "+r.URL.Path)
		var fail func(http.ResponseWriter)
		if len(s.Fail) > 0 {
			fail, s.Fail = s.Fail[0], s.Fail[1:]
		}
		want := s.Token
		if s.AppKey != nil {
			want = s.AppToken
		}
		echo := s.EchoAuth
		s.Mu.Unlock()
		if fail != nil {
			fail(w)
			return
		}
		if got := r.Header.Get("Authorization"); want == "" || got != "Bearer "+want && got != "token "+want {
			msg := "Bad credentials"
			if echo {
				msg += ": " + got
			}
			writeJSON(w, http.StatusUnauthorized, map[string]string{"message": msg, "documentation_url": "https://docs.github.com/rest"})
			return
		}
		if r.Header.Get("Accept") == "" {
			s.t.Errorf("fake GitHub: %s %s: no Accept header", r.Method, r.URL.Path)
		}
		w.Header().Set("X-RateLimit-Limit", "5000")
		w.Header().Set("X-RateLimit-Remaining", "4999")
		w.Header().Set("X-RateLimit-Reset", strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10))
		h(w, r)
	}
}

func (s *Server) commentJSON(r *http.Request, c Comment) map[string]any {
	o, rp := r.PathValue("owner"), r.PathValue("repo")
	kind := "User"
	if strings.HasSuffix(c.User, "[bot]") {
		kind = "Bot"
	}
	return map[string]any{
		"id":                 c.ID,
		"node_id":            "IC_kwDO" + strconv.FormatInt(c.ID, 10),
		"url":                fmt.Sprintf("%sapi/v3/repos/%s/%s/issues/comments/%d", s.URL(), o, rp, c.ID),
		"html_url":           fmt.Sprintf("https://github.example/%s/%s/pull/%d#issuecomment-%d", o, rp, c.Issue, c.ID),
		"issue_url":          fmt.Sprintf("%sapi/v3/repos/%s/%s/issues/%d", s.URL(), o, rp, c.Issue),
		"body":               c.Body,
		"user":               map[string]any{"login": c.User, "id": 1, "type": kind},
		"created_at":         "2026-11-30T09:00:00Z",
		"updated_at":         "2026-11-30T09:00:00Z",
		"author_association": "MEMBER",
	}
}

// listComments is "List issue comments": the issue's comments, oldest
// first, paged with per_page and page and a Link header.
func (s *Server) listComments(w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(r.PathValue("n"))
	per, _ := strconv.Atoi(r.URL.Query().Get("per_page"))
	if per <= 0 {
		per = 30
	}
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	if page <= 0 {
		page = 1
	}
	var all []Comment
	s.Mu.Lock()
	for _, c := range s.Comments {
		if c.Issue == n {
			all = append(all, c)
		}
	}
	s.Mu.Unlock()
	lo, hi := min((page-1)*per, len(all)), min(page*per, len(all))
	out := []map[string]any{}
	for _, c := range all[lo:hi] {
		out = append(out, s.commentJSON(r, c))
	}
	if hi < len(all) {
		u := *r.URL
		q := u.Query()
		q.Set("page", strconv.Itoa(page+1))
		u.RawQuery = q.Encode()
		w.Header().Set("Link", fmt.Sprintf(`<%s%s>; rel="next"`, s.srv.URL, u.String()))
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) readBody(w http.ResponseWriter, r *http.Request) (string, bool) {
	var in struct {
		Body *string `json:"body"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Body == nil {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "Validation Failed", "errors": []map[string]string{{"resource": "IssueComment", "code": "missing_field", "field": "body"}}})
		return "", false
	}
	if n := len([]rune(*in.Body)); n > CommentLimit {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "Validation Failed", "errors": []map[string]string{{"resource": "IssueComment", "code": "custom", "field": "body", "message": "body is too long (maximum is 65536 characters)"}}})
		return "", false
	}
	return *in.Body, true
}

func (s *Server) createComment(w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(r.PathValue("n"))
	body, ok := s.readBody(w, r)
	if !ok {
		return
	}
	s.Mu.Lock()
	s.nextID++
	c := Comment{ID: s.nextID, Issue: n, Body: body, User: s.Login}
	s.Comments = append(s.Comments, c)
	s.Mu.Unlock()
	writeJSON(w, http.StatusCreated, s.commentJSON(r, c))
}

func (s *Server) editComment(w http.ResponseWriter, r *http.Request) {
	body, ok := s.readBody(w, r)
	if !ok {
		return
	}
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	s.Mu.Lock()
	defer s.Mu.Unlock()
	for i := range s.Comments {
		if c := &s.Comments[i]; c.ID == id {
			c.Body = body
			c.Edits++
			writeJSON(w, http.StatusOK, s.commentJSON(r, *c))
			return
		}
	}
	notFoundDoc(w, "https://docs.github.com/rest/issues/comments#update-an-issue-comment")
}

// getPull is "Get a pull request": an open one of Heads, made on main.
func (s *Server) getPull(w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(r.PathValue("n"))
	s.Mu.Lock()
	head, ok := s.Heads[n]
	s.Mu.Unlock()
	if !ok {
		notFoundDoc(w, "https://docs.github.com/rest/pulls/pulls#get-a-pull-request")
		return
	}
	full := r.PathValue("owner") + "/" + r.PathValue("repo")
	writeJSON(w, http.StatusOK, map[string]any{
		"number": n, "state": "open", "title": "Faster WAL",
		"head": map[string]any{"ref": "wal", "sha": head, "repo": map[string]any{"full_name": full}},
		"base": map[string]any{"ref": "main", "sha": "5d2f1c0a1e4b7e1c2d4c3f1a0b9e8d7c6b5a4f3e", "repo": map[string]any{"full_name": full}},
	})
}

// createStatus is "Create a commit status".
func (s *Server) createStatus(w http.ResponseWriter, r *http.Request) {
	var in map[string]any
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"message": "Problems parsing JSON"})
		return
	}
	switch in["state"] {
	case "error", "failure", "pending", "success":
	default:
		writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "Validation Failed"})
		return
	}
	if d, _ := in["description"].(string); len([]rune(d)) > StatusDescriptionLimit {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "Validation Failed"})
		return
	}
	in["sha"] = r.PathValue("sha")
	s.Mu.Lock()
	s.Statuses = append(s.Statuses, in)
	s.Mu.Unlock()
	in["id"] = 1
	writeJSON(w, http.StatusCreated, in)
}

// accessToken is "Create an installation access token for an app": it
// checks the App's JWT and answers with AppToken.
func (s *Server) accessToken(w http.ResponseWriter, r *http.Request) {
	if !s.jwtOK(w, r) {
		return
	}
	if r.PathValue("id") != InstallationID {
		notFoundDoc(w, "https://docs.github.com/rest/apps/apps#create-an-installation-access-token-for-an-app")
		return
	}
	s.Mu.Lock()
	s.Tokens++
	tok := s.AppToken
	s.Mu.Unlock()
	writeJSON(w, http.StatusCreated, map[string]any{
		"token":                tok,
		"expires_at":           time.Now().Add(time.Hour).UTC().Format(time.RFC3339),
		"permissions":          map[string]string{"issues": "write", "statuses": "write"},
		"repository_selection": "selected",
	})
}

// jwtOK checks the App JWT's RS256 signature and claims (issuer AppID,
// issued in the past, expiring within ten minutes), answering 401 as
// GitHub does when they do not hold.
func (s *Server) jwtOK(w http.ResponseWriter, r *http.Request) bool {
	jwt, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	parts := strings.Split(jwt, ".")
	s.Mu.Lock()
	key := s.AppKey
	s.Mu.Unlock()
	if !ok || len(parts) != 3 || key == nil {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"message": "A JSON web token could not be decoded"})
		return false
	}
	sig, _ := base64.RawURLEncoding.DecodeString(parts[2])
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if err := rsa.VerifyPKCS1v15(key, crypto.SHA256, sum[:], sig); err != nil {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"message": "A JSON web token could not be decoded"})
		return false
	}
	var claims struct {
		IAT, EXP int64
		ISS      json.Number
	}
	raw, _ := base64.RawURLEncoding.DecodeString(parts[1])
	_ = json.Unmarshal(raw, &claims)
	now := time.Now().Unix()
	if claims.ISS.String() != AppID || claims.IAT > now || claims.EXP <= now || claims.EXP-claims.IAT > 600 {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"message": "'Expiration time' claim ('exp') is too far in the future"})
		return false
	}
	return true
}

// user is "Get the authenticated user"; a workflow's GITHUB_TOKEN gets
// 403 "Resource not accessible by integration" instead.
func (s *Server) user(w http.ResponseWriter, r *http.Request) {
	s.Mu.Lock()
	login, integration := s.Login, s.Integration
	s.Mu.Unlock()
	if integration {
		writeJSON(w, http.StatusForbidden, map[string]any{"message": "Resource not accessible by integration",
			"documentation_url": "https://docs.github.com/rest/users/users#get-the-authenticated-user", "status": "403"})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"login": login, "id": 1, "node_id": "MDQ6VXNlcjE=", "type": "User",
		"site_admin": false, "html_url": "https://github.example/" + login, "name": login})
}

// getApp is "Get the authenticated app", with the App's JWT: its id,
// slug, name and owner. The App's comments are written by the bot user
// "<slug>[bot]".
func (s *Server) getApp(w http.ResponseWriter, r *http.Request) {
	if !s.jwtOK(w, r) {
		return
	}
	s.Mu.Lock()
	slug := s.Slug
	s.Mu.Unlock()
	id, _ := strconv.Atoi(AppID)
	writeJSON(w, http.StatusOK, map[string]any{"id": id, "slug": slug, "node_id": "MDM6QXBwMTIzNDU=", "client_id": "Iv1.8a61f9b3a7aba766",
		"name": slug, "owner": map[string]any{"login": "acme", "id": 2, "type": "Organization"},
		"permissions": map[string]string{"issues": "write", "statuses": "write", "checks": "write"}, "events": []string{"issue_comment"}})
}

// Failure answers, as GitHub sends them, for Fail.

// Status502 is a proxy's 502 Bad Gateway, in HTML.
func Status502(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/html")
	w.WriteHeader(http.StatusBadGateway)
	fmt.Fprint(w, "<html><body><h1>502 Bad Gateway</h1></body></html>")
}

// Status429 is 429 Too Many Requests with a Retry-After of 2 seconds.
func Status429(w http.ResponseWriter) {
	w.Header().Set("Retry-After", "2")
	writeJSON(w, http.StatusTooManyRequests, map[string]string{"message": "Too Many Requests"})
}

// PrimaryLimit is the primary rate limit's 403, its reset already passed.
func PrimaryLimit(w http.ResponseWriter) {
	w.Header().Set("X-RateLimit-Limit", "5000")
	w.Header().Set("X-RateLimit-Remaining", "0")
	w.Header().Set("X-RateLimit-Reset", strconv.FormatInt(time.Now().Add(-time.Second).Unix(), 10))
	writeJSON(w, http.StatusForbidden, map[string]string{"message": "API rate limit exceeded for user ID 1.", "documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-the-primary-rate-limit"})
}

// SecondaryLimit is the secondary rate limit's 403. It names no wait
// (go-github itself refuses requests until a named wait has passed, which
// a test that does not sleep cannot see).
func SecondaryLimit(w http.ResponseWriter) {
	writeJSON(w, http.StatusForbidden, map[string]string{"message": "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.", "documentation_url": "https://docs.github.com/free-pro-team@latest/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"})
}

// NotFound is GitHub's 404, which it also answers for a repository the
// token may not see.
func NotFound(w http.ResponseWriter) { notFoundDoc(w, "https://docs.github.com/rest") }

// Forbidden is the 403 of a token without the permission.
func Forbidden(w http.ResponseWriter) {
	writeJSON(w, http.StatusForbidden, map[string]string{"message": "Resource not accessible by integration", "documentation_url": "https://docs.github.com/rest/issues/comments#create-an-issue-comment"})
}

// listCheckRuns is "List check runs for a Git reference", newest first,
// filtered by check_name, as GitHub does.
func (s *Server) listCheckRuns(w http.ResponseWriter, r *http.Request) {
	name := r.URL.Query().Get("check_name")
	s.Mu.Lock()
	defer s.Mu.Unlock()
	runs := []map[string]any{}
	for i := len(s.CheckRuns) - 1; i >= 0; i-- {
		c := s.CheckRuns[i]
		if c["head_sha"] == r.PathValue("ref") && (name == "" || c["name"] == name) {
			runs = append(runs, c)
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"total_count": len(runs), "check_runs": runs})
}

// checkRunInput reads and validates a check run's fields as GitHub does:
// known status and conclusion values, a conclusion exactly when completed
// (a conclusion alone completes the run), an output with a title and a
// summary of at most CheckSummaryLimit characters.
func (s *Server) checkRunInput(w http.ResponseWriter, r *http.Request, create bool) (map[string]any, bool) {
	invalid := func(msg string) (map[string]any, bool) {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "Invalid request.\n\n" + msg, "documentation_url": "https://docs.github.com/rest/checks/runs"})
		return nil, false
	}
	s.Mu.Lock()
	denied := s.ChecksDenied
	s.Mu.Unlock()
	if denied {
		writeJSON(w, http.StatusForbidden, map[string]any{"message": "You must authenticate via a GitHub App.", "documentation_url": "https://docs.github.com/rest/checks/runs#create-a-check-run"})
		return nil, false
	}
	var in map[string]any
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"message": "Problems parsing JSON"})
		return nil, false
	}
	if create && (in["name"] == nil || in["head_sha"] == nil) {
		return invalid("\"name\" and \"head_sha\" weren't supplied.")
	}
	status, _ := in["status"].(string)
	conclusion, _ := in["conclusion"].(string)
	switch status {
	case "", "queued", "in_progress", "completed":
	default:
		return invalid(fmt.Sprintf("%q is not a member of [queued, in_progress, completed].", status))
	}
	switch conclusion {
	case "":
		if status == "completed" {
			return invalid("\"conclusion\" wasn't supplied.")
		}
	case "action_required", "cancelled", "failure", "neutral", "success", "skipped", "stale", "timed_out":
		in["status"] = "completed"
	default:
		return invalid(fmt.Sprintf("%q is not a valid conclusion.", conclusion))
	}
	if out, ok := in["output"].(map[string]any); ok {
		title, _ := out["title"].(string)
		summary, _ := out["summary"].(string)
		if title == "" || summary == "" {
			return invalid("\"title\" and \"summary\" weren't supplied.")
		}
		if n := len([]rune(summary)); n > CheckSummaryLimit {
			return invalid(fmt.Sprintf("Only %d characters are allowed; %d were supplied.", CheckSummaryLimit, n))
		}
	}
	return in, true
}

// createCheckRun is "Create a check run".
func (s *Server) createCheckRun(w http.ResponseWriter, r *http.Request) {
	in, ok := s.checkRunInput(w, r, true)
	if !ok {
		return
	}
	s.Mu.Lock()
	s.nextID++
	in["id"] = s.nextID
	in["html_url"] = fmt.Sprintf("https://github.example/%s/%s/runs/%d", r.PathValue("owner"), r.PathValue("repo"), s.nextID)
	if in["status"] == nil {
		in["status"] = "queued"
	}
	s.CheckRuns = append(s.CheckRuns, in)
	s.Mu.Unlock()
	writeJSON(w, http.StatusCreated, in)
}

// updateCheckRun is "Update a check run".
func (s *Server) updateCheckRun(w http.ResponseWriter, r *http.Request) {
	in, ok := s.checkRunInput(w, r, false)
	if !ok {
		return
	}
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	s.Mu.Lock()
	defer s.Mu.Unlock()
	for _, c := range s.CheckRuns {
		if c["id"] == id {
			for k, v := range in {
				c[k] = v
			}
			if in["status"] != nil && in["status"] != "completed" {
				delete(c, "conclusion")
			}
			writeJSON(w, http.StatusOK, c)
			return
		}
	}
	notFoundDoc(w, "https://docs.github.com/rest/checks/runs#update-a-check-run")
}
