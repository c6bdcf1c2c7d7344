package github

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

// fakeGitHub serves the REST endpoints perfbot uses, under the GitHub
// Enterprise prefix /api/v3, with GitHub's documented methods, status codes,
// headers and JSON shapes.
type fakeGitHub struct {
	t      *testing.T
	srv    *httptest.Server
	token  string         // accepted bearer token
	appKey *rsa.PublicKey // verifies app JWTs, when set
	appTok string         // installation token handed out
	login  string         // author of comments created here, and GET /user's login
	slug   string         // the App's slug (GET /app)
	head   string         // the pull request's head commit

	mu       sync.Mutex
	comments []fakeComment
	nextID   int64
	statuses []map[string]any
	// checkRuns are the check runs created, by id order; checksDenied
	// answers their writes as GitHub answers a personal access token.
	checkRuns    []map[string]any
	checksDenied bool
	fail         []func(w http.ResponseWriter) // served, in order, before real answers
	requests     []string
	tokens       int // installation tokens minted
	echoAuth     bool
}

type fakeComment struct {
	ID   int64
	Body string
	User string
}

func newFakeGitHub(t *testing.T, token string) *fakeGitHub {
	f := &fakeGitHub{t: t, token: token, login: "perfbot-ci", slug: "perfbot", head: "6dcb09b5b57875f334f61aebed695e2e4193db5e", nextID: 1000}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v3/repos/{owner}/{repo}/issues/{n}/comments", f.auth(f.listComments))
	mux.HandleFunc("POST /api/v3/repos/{owner}/{repo}/issues/{n}/comments", f.auth(f.createComment))
	mux.HandleFunc("PATCH /api/v3/repos/{owner}/{repo}/issues/comments/{id}", f.auth(f.editComment))
	mux.HandleFunc("GET /api/v3/repos/{owner}/{repo}/pulls/{n}", f.auth(f.getPull))
	mux.HandleFunc("POST /api/v3/repos/{owner}/{repo}/statuses/{sha}", f.auth(f.createStatus))
	mux.HandleFunc("GET /api/v3/repos/{owner}/{repo}/commits/{ref}/check-runs", f.auth(f.listCheckRuns))
	mux.HandleFunc("POST /api/v3/repos/{owner}/{repo}/check-runs", f.auth(f.createCheckRun))
	mux.HandleFunc("PATCH /api/v3/repos/{owner}/{repo}/check-runs/{id}", f.auth(f.updateCheckRun))
	mux.HandleFunc("POST /api/v3/app/installations/{id}/access_tokens", f.accessToken)
	mux.HandleFunc("GET /api/v3/user", f.auth(f.user))
	mux.HandleFunc("GET /api/v3/app", f.getApp)
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeGitHub) url() string { return f.srv.URL + "/" }

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func (f *fakeGitHub) auth(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.requests = append(f.requests, r.Method+" "+r.URL.Path)
		var fail func(http.ResponseWriter)
		if len(f.fail) > 0 {
			fail, f.fail = f.fail[0], f.fail[1:]
		}
		want := f.token
		if f.appKey != nil {
			want = f.appTok
		}
		echo := f.echoAuth
		f.mu.Unlock()
		if fail != nil {
			fail(w)
			return
		}
		if got := r.Header.Get("Authorization"); got != "Bearer "+want {
			msg := "Bad credentials"
			if echo {
				msg += ": " + got
			}
			writeJSON(w, http.StatusUnauthorized, map[string]string{"message": msg, "documentation_url": "https://docs.github.com/rest"})
			return
		}
		if r.Header.Get("Accept") == "" {
			f.t.Errorf("%s %s: no Accept header", r.Method, r.URL.Path)
		}
		w.Header().Set("X-RateLimit-Limit", "5000")
		w.Header().Set("X-RateLimit-Remaining", "4999")
		w.Header().Set("X-RateLimit-Reset", strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10))
		h(w, r)
	}
}

func (f *fakeGitHub) commentJSON(r *http.Request, c fakeComment) map[string]any {
	o, rp, n := r.PathValue("owner"), r.PathValue("repo"), 7
	return map[string]any{
		"id":                 c.ID,
		"node_id":            "IC_kwDO" + strconv.FormatInt(c.ID, 10),
		"url":                fmt.Sprintf("%sapi/v3/repos/%s/%s/issues/comments/%d", f.url(), o, rp, c.ID),
		"html_url":           fmt.Sprintf("https://github.example/%s/%s/pull/%d#issuecomment-%d", o, rp, n, c.ID),
		"issue_url":          fmt.Sprintf("%sapi/v3/repos/%s/%s/issues/%d", f.url(), o, rp, n),
		"body":               c.Body,
		"user":               map[string]any{"login": c.User, "id": 1, "type": "User"},
		"created_at":         "2026-11-30T09:00:00Z",
		"updated_at":         "2026-11-30T09:00:00Z",
		"author_association": "MEMBER",
	}
}

// listComments pages with per_page and page and a Link header, as GitHub.
func (f *fakeGitHub) listComments(w http.ResponseWriter, r *http.Request) {
	per, _ := strconv.Atoi(r.URL.Query().Get("per_page"))
	if per <= 0 {
		per = 30
	}
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	if page <= 0 {
		page = 1
	}
	f.mu.Lock()
	all := append([]fakeComment(nil), f.comments...)
	f.mu.Unlock()
	lo, hi := min((page-1)*per, len(all)), min(page*per, len(all))
	out := []map[string]any{}
	for _, c := range all[lo:hi] {
		out = append(out, f.commentJSON(r, c))
	}
	if hi < len(all) {
		u := *r.URL
		q := u.Query()
		q.Set("page", strconv.Itoa(page+1))
		u.RawQuery = q.Encode()
		w.Header().Set("Link", fmt.Sprintf(`<%s%s>; rel="next"`, strings.TrimSuffix(f.url(), "/"), u.String()))
	}
	writeJSON(w, http.StatusOK, out)
}

func (f *fakeGitHub) readBody(w http.ResponseWriter, r *http.Request) (string, bool) {
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

func (f *fakeGitHub) createComment(w http.ResponseWriter, r *http.Request) {
	body, ok := f.readBody(w, r)
	if !ok {
		return
	}
	f.mu.Lock()
	f.nextID++
	c := fakeComment{ID: f.nextID, Body: body, User: f.login}
	f.comments = append(f.comments, c)
	f.mu.Unlock()
	writeJSON(w, http.StatusCreated, f.commentJSON(r, c))
}

func (f *fakeGitHub) editComment(w http.ResponseWriter, r *http.Request) {
	body, ok := f.readBody(w, r)
	if !ok {
		return
	}
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range f.comments {
		if f.comments[i].ID == id {
			f.comments[i].Body = body
			writeJSON(w, http.StatusOK, f.commentJSON(r, f.comments[i]))
			return
		}
	}
	writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found", "documentation_url": "https://docs.github.com/rest/issues/comments#update-an-issue-comment"})
}

func (f *fakeGitHub) getPull(w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(r.PathValue("n"))
	if n != 7 {
		writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found", "documentation_url": "https://docs.github.com/rest/pulls/pulls#get-a-pull-request"})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"number": n, "state": "open", "title": "Faster WAL",
		"head": map[string]any{"ref": "wal", "sha": f.headSHA()},
		"base": map[string]any{"ref": "main", "sha": "5d2f1c0a1e4b7e1c2d4c3f1a0b9e8d7c6b5a4f3e"},
	})
}

func (f *fakeGitHub) createStatus(w http.ResponseWriter, r *http.Request) {
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
	f.mu.Lock()
	f.statuses = append(f.statuses, in)
	f.mu.Unlock()
	in["id"] = 1
	writeJSON(w, http.StatusCreated, in)
}

// accessToken checks the app JWT's RS256 signature and claims and answers
// with an installation token, as POST /app/installations/{id}/access_tokens.
func (f *fakeGitHub) accessToken(w http.ResponseWriter, r *http.Request) {
	if !f.jwtOK(w, r) {
		return
	}
	if r.PathValue("id") != "99" {
		writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
		return
	}
	f.mu.Lock()
	f.tokens++
	f.mu.Unlock()
	writeJSON(w, http.StatusCreated, map[string]any{
		"token":                f.appTok,
		"expires_at":           time.Now().Add(time.Hour).UTC().Format(time.RFC3339),
		"permissions":          map[string]string{"issues": "write", "statuses": "write"},
		"repository_selection": "selected",
	})
}

// jwtOK checks the app JWT's RS256 signature and claims, answering 401 as
// GitHub does when they do not hold.
func (f *fakeGitHub) jwtOK(w http.ResponseWriter, r *http.Request) bool {
	jwt, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	parts := strings.Split(jwt, ".")
	if !ok || len(parts) != 3 || f.appKey == nil {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"message": "A JSON web token could not be decoded"})
		return false
	}
	sig, _ := base64.RawURLEncoding.DecodeString(parts[2])
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if err := rsa.VerifyPKCS1v15(f.appKey, crypto.SHA256, sum[:], sig); err != nil {
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
	if claims.ISS.String() != "12345" || claims.IAT > now || claims.EXP <= now || claims.EXP-claims.IAT > 600 {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"message": "'Expiration time' claim ('exp') is too far in the future"})
		return false
	}
	return true
}

func (f *fakeGitHub) headSHA() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.head
}

// user is GET /user: the signed-in user, as GitHub documents it ("Get the
// authenticated user"); a workflow's GITHUB_TOKEN gets 403 "Resource not
// accessible by integration" instead (forbidden).
func (f *fakeGitHub) user(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	login := f.login
	f.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"login": login, "id": 1, "node_id": "MDQ6VXNlcjE=", "type": "User",
		"site_admin": false, "html_url": "https://github.example/" + login, "name": login})
}

// getApp is GET /app with the App's JWT ("Get the authenticated app"):
// its id, slug, name and owner. The App's comments are written by the bot
// user "<slug>[bot]".
func (f *fakeGitHub) getApp(w http.ResponseWriter, r *http.Request) {
	if !f.jwtOK(w, r) {
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": 12345, "slug": f.slug, "node_id": "MDM6QXBwMTIzNDU=", "client_id": "Iv1.8a61f9b3a7aba766",
		"name": f.slug, "owner": map[string]any{"login": "acme", "id": 2, "type": "Organization"},
		"permissions": map[string]string{"issues": "write", "statuses": "write", "checks": "write"}, "events": []string{"issue_comment"}})
}

// Failure answers, as GitHub sends them.

func status502(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/html")
	w.WriteHeader(http.StatusBadGateway)
	fmt.Fprint(w, "<html><body><h1>502 Bad Gateway</h1></body></html>")
}

func status429(w http.ResponseWriter) {
	w.Header().Set("Retry-After", "2")
	writeJSON(w, http.StatusTooManyRequests, map[string]string{"message": "Too Many Requests"})
}

func primaryLimit(w http.ResponseWriter) {
	w.Header().Set("X-RateLimit-Limit", "5000")
	w.Header().Set("X-RateLimit-Remaining", "0")
	w.Header().Set("X-RateLimit-Reset", strconv.FormatInt(time.Now().Add(-time.Second).Unix(), 10))
	writeJSON(w, http.StatusForbidden, map[string]string{"message": "API rate limit exceeded for user ID 1.", "documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-the-primary-rate-limit"})
}

// secondaryLimit names no wait (go-github itself refuses requests until a
// named wait has passed, which a test that does not sleep cannot see).
func secondaryLimit(w http.ResponseWriter) {
	writeJSON(w, http.StatusForbidden, map[string]string{"message": "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.", "documentation_url": "https://docs.github.com/free-pro-team@latest/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"})
}

func forbidden(w http.ResponseWriter) {
	writeJSON(w, http.StatusForbidden, map[string]string{"message": "Resource not accessible by integration", "documentation_url": "https://docs.github.com/rest/issues/comments#create-an-issue-comment"})
}

// listCheckRuns answers "List check runs for a Git reference", filtered by
// check_name as GitHub does.
func (f *fakeGitHub) listCheckRuns(w http.ResponseWriter, r *http.Request) {
	name := r.URL.Query().Get("check_name")
	f.mu.Lock()
	defer f.mu.Unlock()
	runs := []map[string]any{}
	for i := len(f.checkRuns) - 1; i >= 0; i-- { // newest first
		c := f.checkRuns[i]
		if c["head_sha"] == r.PathValue("ref") && (name == "" || c["name"] == name) {
			runs = append(runs, c)
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"total_count": len(runs), "check_runs": runs})
}

// checkRunInput reads and validates a check run's fields as GitHub does:
// known status and conclusion values, a conclusion exactly when completed
// (a conclusion alone completes the run), an output with a title and a
// summary of at most 65535 characters.
func (f *fakeGitHub) checkRunInput(w http.ResponseWriter, r *http.Request, create bool) (map[string]any, bool) {
	invalid := func(msg string) (map[string]any, bool) {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "Invalid request.\n\n" + msg, "documentation_url": "https://docs.github.com/rest/checks/runs"})
		return nil, false
	}
	if f.checksDenied {
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
		if len([]rune(summary)) > 65535 {
			return invalid("Only 65535 characters are allowed; 65536 were supplied.")
		}
	}
	return in, true
}

func (f *fakeGitHub) createCheckRun(w http.ResponseWriter, r *http.Request) {
	in, ok := f.checkRunInput(w, r, true)
	if !ok {
		return
	}
	f.mu.Lock()
	f.nextID++
	in["id"] = f.nextID
	in["html_url"] = fmt.Sprintf("https://github.example/%s/%s/runs/%d", r.PathValue("owner"), r.PathValue("repo"), f.nextID)
	if in["status"] == nil {
		in["status"] = "queued"
	}
	f.checkRuns = append(f.checkRuns, in)
	f.mu.Unlock()
	writeJSON(w, http.StatusCreated, in)
}

func (f *fakeGitHub) updateCheckRun(w http.ResponseWriter, r *http.Request) {
	in, ok := f.checkRunInput(w, r, false)
	if !ok {
		return
	}
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range f.checkRuns {
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
	writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found", "documentation_url": "https://docs.github.com/rest/checks/runs#update-a-check-run"})
}
