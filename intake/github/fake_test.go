package github

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	ghreview "github.com/perfbot/perfbot/venue/github"
)

// fakeGitHub serves the GitHub REST endpoints the intake calls, with the
// documented request and response shapes, and records what was done.
type fakeGitHub struct {
	t     *testing.T
	srv   *httptest.Server
	token string

	mu          sync.Mutex
	permissions map[string]string // login -> role name
	reactions   []string          // "COMMENT_ID:CONTENT"
	replies     []string          // "NUMBER:BODY"
	comments    []Comment         // listed by the comments endpoint
	issues      map[int]Issue
	// heads are the pull requests' head commits (GET .../pulls/{number}
	// answers head.sha); a pull request not listed is at defaultHead.
	heads map[int]string
	// permFailures is how many permission lookups to answer 500, as
	// GitHub does in an outage, before answering again.
	permFailures int
	// paths records every request's method and path.
	paths []string
}

func newFakeGitHub(t *testing.T) *fakeGitHub {
	f := &fakeGitHub{t: t, token: "ghs_test", permissions: map[string]string{}, issues: map[int]Issue{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /repos/{owner}/{repo}/collaborators/{user}/permission", f.auth(f.permission))
	mux.HandleFunc("POST /repos/{owner}/{repo}/issues/comments/{id}/reactions", f.auth(f.react))
	mux.HandleFunc("POST /repos/{owner}/{repo}/issues/{number}/comments", f.auth(f.reply))
	mux.HandleFunc("GET /repos/{owner}/{repo}/issues/comments", f.auth(f.listComments))
	mux.HandleFunc("GET /repos/{owner}/{repo}/issues/{number}", f.auth(f.issue))
	mux.HandleFunc("GET /repos/{owner}/{repo}/pulls/{number}", f.auth(f.pull))
	// A GitHub Enterprise Server: the API lives under /api/v3/ (a
	// loopback address is never api.github.com).
	f.srv = httptest.NewServer(http.StripPrefix("/api/v3", mux))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeGitHub) client() *ghreview.Client {
	c, err := ghreview.New(ghreview.Config{BaseURL: f.srv.URL + "/", Token: f.token})
	if err != nil {
		f.t.Fatal(err)
	}
	return c
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

func (f *fakeGitHub) auth(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+f.token {
			writeJSON(w, http.StatusUnauthorized, map[string]string{"message": "Bad credentials",
				"documentation_url": "https://docs.github.com/rest"})
			return
		}
		if r.PathValue("owner") != "acme" || r.PathValue("repo") != "store" {
			writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
			return
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		f.paths = append(f.paths, r.Method+" "+r.URL.Path)
		h(w, r)
	}
}

func (f *fakeGitHub) permission(w http.ResponseWriter, r *http.Request) {
	if f.permFailures > 0 {
		f.permFailures--
		writeJSON(w, http.StatusInternalServerError, map[string]string{"message": "Server Error"})
		return
	}
	user := r.PathValue("user")
	role, ok := f.permissions[user]
	if !ok {
		// GitHub answers 404 for a user who is not a collaborator of a
		// private repository, and "read" on a public one.
		role = "read"
	}
	perm := role
	if role == "maintain" {
		perm = "write"
	} else if role == "triage" {
		perm = "read"
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"permission": perm,
		"role_name":  role,
		"user":       map[string]any{"login": user, "type": "User"},
	})
}

func (f *fakeGitHub) react(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Content string `json:"content"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil || body.Content == "" {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]string{"message": "Validation Failed"})
		return
	}
	f.reactions = append(f.reactions, r.PathValue("id")+":"+body.Content)
	writeJSON(w, http.StatusCreated, map[string]any{"id": len(f.reactions), "content": body.Content,
		"user": map[string]any{"login": "perfbot[bot]", "type": "Bot"}, "created_at": time.Now().UTC()})
}

func (f *fakeGitHub) reply(w http.ResponseWriter, r *http.Request) {
	data, _ := io.ReadAll(r.Body)
	var body struct {
		Body string `json:"body"`
	}
	if err := json.Unmarshal(data, &body); err != nil || body.Body == "" {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]string{"message": "Validation Failed"})
		return
	}
	f.replies = append(f.replies, r.PathValue("number")+":"+body.Body)
	writeJSON(w, http.StatusCreated, map[string]any{"id": 5000 + len(f.replies), "body": body.Body,
		"user": map[string]any{"login": "perfbot[bot]", "type": "Bot"}})
}

// listComments answers GET /repos/{owner}/{repo}/issues/comments as
// GitHub documents it: comments updated at or after since, sorted by
// sort (created, the default, or updated) in direction (asc unless
// desc), per_page at a time (default 30, at most 100) from page (1-based),
// with a Link header naming the next page when there is one.
func (f *fakeGitHub) listComments(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	since, _ := time.Parse(time.RFC3339, q.Get("since"))
	updated := func(c Comment) time.Time {
		if c.Updated.IsZero() {
			return c.Created
		}
		return c.Updated
	}
	var list []Comment
	for _, c := range f.comments {
		if !updated(c).Before(since) {
			list = append(list, c)
		}
	}
	key := func(c Comment) time.Time { return c.Created }
	if q.Get("sort") == "updated" {
		key = updated
	}
	sort.SliceStable(list, func(i, j int) bool {
		if q.Get("direction") == "desc" {
			return key(list[i]).After(key(list[j]))
		}
		return key(list[i]).Before(key(list[j]))
	})
	perPage, _ := strconv.Atoi(q.Get("per_page"))
	if perPage <= 0 {
		perPage = 30
	}
	perPage = min(perPage, 100)
	page, _ := strconv.Atoi(q.Get("page"))
	page = max(page, 1)
	from := min((page-1)*perPage, len(list))
	to := min(from+perPage, len(list))
	if to < len(list) {
		next := *r.URL
		nq := next.Query()
		nq.Set("page", strconv.Itoa(page+1))
		next.RawQuery = nq.Encode()
		w.Header().Set("Link", fmt.Sprintf(`<%s/api/v3%s>; rel="next"`, f.srv.URL, next.RequestURI()))
	}
	out := []map[string]any{}
	for _, c := range list[from:to] {
		out = append(out, map[string]any{"id": c.ID, "body": c.Body, "html_url": c.HTMLURL, "issue_url": c.IssueURL,
			"created_at": c.Created, "updated_at": updated(c), "author_association": "COLLABORATOR",
			"user": map[string]any{"login": c.User.Login, "type": or(c.User.Type, "User")}})
	}
	writeJSON(w, http.StatusOK, out)
}

func (f *fakeGitHub) issue(w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(r.PathValue("number"))
	is, ok := f.issues[n]
	if !ok {
		writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
		return
	}
	out := map[string]any{"number": is.Number, "title": is.Title, "html_url": is.HTMLURL, "state": or(is.State, "open")}
	if is.PullRequest {
		out["pull_request"] = map[string]any{"url": fmt.Sprintf("https://api.github.com/repos/acme/store/pulls/%d", n)}
	}
	writeJSON(w, http.StatusOK, out)
}

// defaultHead is the head commit of the fake's pull requests.
const defaultHead = "0123456789abcdef0123456789abcdef01234567"

// pull answers GET /repos/{owner}/{repo}/pulls/{number} as GitHub
// documents it: the pull request with head.sha and head.ref.
func (f *fakeGitHub) pull(w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(r.PathValue("number"))
	head := or(f.heads[n], defaultHead)
	writeJSON(w, http.StatusOK, map[string]any{"number": n, "state": "open", "title": fmt.Sprintf("pull request %d", n),
		"head": map[string]any{"sha": head, "ref": "feature"}, "base": map[string]any{"ref": "main", "sha": strings.Repeat("f", 40)}})
}

func (f *fakeGitHub) snapshot() (reactions, replies []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.reactions...), append([]string(nil), f.replies...)
}
