package action_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// fakeGitHub serves the REST endpoints the action uses, under a GitHub
// Enterprise Server's /api/v3 (GITHUB_API_URL's form there), with the
// documented methods, status codes and JSON shapes. A workflow's
// GITHUB_TOKEN is an integration's: GET /user answers 403 as GitHub does.
type fakeGitHub struct {
	t     *testing.T
	srv   *httptest.Server
	token string
	login string // author of the comments created

	mu        sync.Mutex
	heads     map[int]string // pull request number -> head commit
	comments  []fakeComment
	checkRuns []fakeCheckRun
	nextID    int64
	writes    []string // "METHOD PATH" of every request that changes something
}

type fakeComment struct {
	ID          int64
	Issue       int
	Body, Login string
	Edits       int
}

type fakeCheckRun struct {
	ID                             int64
	Name, HeadSHA                  string
	Status, Conclusion, Title, Sum string
}

func newFakeGitHub(t *testing.T, token string) *fakeGitHub {
	f := &fakeGitHub{t: t, token: token, login: "github-actions[bot]", heads: map[int]string{}, nextID: 100}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v3/user", f.auth(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusForbidden, map[string]any{"message": "Resource not accessible by integration",
			"documentation_url": "https://docs.github.com/rest/users/users#get-the-authenticated-user", "status": "403"})
	}))
	mux.HandleFunc("GET /api/v3/repos/{owner}/{repo}/issues/{n}/comments", f.auth(f.listComments))
	mux.HandleFunc("POST /api/v3/repos/{owner}/{repo}/issues/{n}/comments", f.auth(f.createComment))
	mux.HandleFunc("PATCH /api/v3/repos/{owner}/{repo}/issues/comments/{id}", f.auth(f.editComment))
	mux.HandleFunc("GET /api/v3/repos/{owner}/{repo}/pulls/{n}", f.auth(f.getPull))
	mux.HandleFunc("GET /api/v3/repos/{owner}/{repo}/commits/{ref}/check-runs", f.auth(f.listCheckRuns))
	mux.HandleFunc("POST /api/v3/repos/{owner}/{repo}/check-runs", f.auth(f.createCheckRun))
	mux.HandleFunc("PATCH /api/v3/repos/{owner}/{repo}/check-runs/{id}", f.auth(f.updateCheckRun))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("fake GitHub: unexpected %s %s", r.Method, r.URL.Path)
		writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
	})
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

// apiURL is GITHUB_API_URL for this server, as on GitHub Enterprise Server.
func (f *fakeGitHub) apiURL() string { return f.srv.URL + "/api/v3" }

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func (f *fakeGitHub) auth(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		f.t.Logf("fake GitHub: %s %s", r.Method, r.URL)
		got := r.Header.Get("Authorization")
		if got != "Bearer "+f.token && got != "token "+f.token {
			writeJSON(w, http.StatusUnauthorized, map[string]string{"message": "Bad credentials"})
			return
		}
		if r.Method != http.MethodGet {
			f.mu.Lock()
			f.writes = append(f.writes, r.Method+" "+r.URL.Path)
			f.mu.Unlock()
		}
		h(w, r)
	}
}

func (f *fakeGitHub) commentJSON(r *http.Request, c fakeComment) map[string]any {
	return map[string]any{
		"id": c.ID, "node_id": fmt.Sprintf("IC_%d", c.ID), "body": c.Body,
		"url":        fmt.Sprintf("%s/api/v3/repos/%s/%s/issues/comments/%d", f.srv.URL, r.PathValue("owner"), r.PathValue("repo"), c.ID),
		"html_url":   fmt.Sprintf("%s/%s/%s/pull/%d#issuecomment-%d", f.srv.URL, r.PathValue("owner"), r.PathValue("repo"), c.Issue, c.ID),
		"user":       map[string]any{"login": c.Login, "type": "Bot"},
		"created_at": "2026-12-02T10:00:00Z", "updated_at": "2026-12-02T10:00:00Z",
	}
}

func (f *fakeGitHub) listComments(w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(r.PathValue("n"))
	f.mu.Lock()
	defer f.mu.Unlock()
	out := []map[string]any{}
	for _, c := range f.comments {
		if c.Issue == n {
			out = append(out, f.commentJSON(r, c))
		}
	}
	writeJSON(w, http.StatusOK, out)
}

func (f *fakeGitHub) createComment(w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(r.PathValue("n"))
	var in struct{ Body string }
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Body == "" {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]string{"message": "Validation Failed"})
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nextID++
	c := fakeComment{ID: f.nextID, Issue: n, Body: in.Body, Login: f.login}
	f.comments = append(f.comments, c)
	writeJSON(w, http.StatusCreated, f.commentJSON(r, c))
}

func (f *fakeGitHub) editComment(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	var in struct{ Body string }
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Body == "" {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]string{"message": "Validation Failed"})
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range f.comments {
		if f.comments[i].ID == id {
			f.comments[i].Body = in.Body
			f.comments[i].Edits++
			writeJSON(w, http.StatusOK, f.commentJSON(r, f.comments[i]))
			return
		}
	}
	writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
}

func (f *fakeGitHub) getPull(w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(r.PathValue("n"))
	f.mu.Lock()
	head, ok := f.heads[n]
	f.mu.Unlock()
	if !ok {
		writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
		return
	}
	full := r.PathValue("owner") + "/" + r.PathValue("repo")
	writeJSON(w, http.StatusOK, map[string]any{
		"number": n, "state": "open",
		"head": map[string]any{"sha": head, "ref": "feature", "repo": map[string]any{"full_name": full}},
		"base": map[string]any{"sha": strings.Repeat("0", 40), "ref": "main", "repo": map[string]any{"full_name": full}},
	})
}

func (f *fakeGitHub) runJSON(c fakeCheckRun) map[string]any {
	m := map[string]any{"id": c.ID, "name": c.Name, "head_sha": c.HeadSHA, "status": c.Status,
		"output": map[string]any{"title": c.Title, "summary": c.Sum}}
	if c.Conclusion != "" {
		m["conclusion"] = c.Conclusion
	}
	return m
}

func (f *fakeGitHub) listCheckRuns(w http.ResponseWriter, r *http.Request) {
	ref, name := r.PathValue("ref"), r.URL.Query().Get("check_name")
	f.mu.Lock()
	defer f.mu.Unlock()
	runs := []map[string]any{}
	for _, c := range f.checkRuns {
		if c.HeadSHA == ref && (name == "" || c.Name == name) {
			runs = append(runs, f.runJSON(c))
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"total_count": len(runs), "check_runs": runs})
}

type checkRunIn struct {
	Name       string `json:"name"`
	HeadSHA    string `json:"head_sha"`
	Status     string `json:"status"`
	Conclusion string `json:"conclusion"`
	Output     *struct {
		Title   string `json:"title"`
		Summary string `json:"summary"`
	} `json:"output"`
}

func (f *fakeGitHub) createCheckRun(w http.ResponseWriter, r *http.Request) {
	var in checkRunIn
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Name == "" || len(in.HeadSHA) != 40 {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]string{"message": "Validation Failed"})
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nextID++
	c := fakeCheckRun{ID: f.nextID, Name: in.Name, HeadSHA: in.HeadSHA, Status: in.Status, Conclusion: in.Conclusion}
	if in.Output != nil {
		c.Title, c.Sum = in.Output.Title, in.Output.Summary
	}
	f.checkRuns = append(f.checkRuns, c)
	writeJSON(w, http.StatusCreated, f.runJSON(c))
}

func (f *fakeGitHub) updateCheckRun(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	var in checkRunIn
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]string{"message": "Validation Failed"})
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range f.checkRuns {
		if f.checkRuns[i].ID == id {
			c := &f.checkRuns[i]
			c.Status, c.Conclusion = in.Status, in.Conclusion
			if in.Output != nil {
				c.Title, c.Sum = in.Output.Title, in.Output.Summary
			}
			writeJSON(w, http.StatusOK, f.runJSON(*c))
			return
		}
	}
	writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
}

// state copies what the fake holds.
func (f *fakeGitHub) state() ([]fakeComment, []fakeCheckRun, []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fakeComment(nil), f.comments...), append([]fakeCheckRun(nil), f.checkRuns...), append([]string(nil), f.writes...)
}
