package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perfbot/perfbot/internal/gitrepo"
	"github.com/perfbot/perfbot/internal/storetest"
	"github.com/perfbot/perfbot/store"
)

// serveJIRA fakes the JIRA Server REST v2 endpoints a comment-reading poll
// uses, in their documented shapes: GET /rest/api/2/search with the
// comment field, GET /rest/api/2/myself, and GET and POST
// /rest/api/2/issue/{key}/comment, for one issue, STORE-1.
type serveJIRA struct {
	mu       sync.Mutex
	comments []map[string]any
	searches int
	nextID   int
}

const jiraTime = "2006-01-02T15:04:05.000-0700"

func (f *serveJIRA) user(name string) map[string]any {
	return map[string]any{"name": name, "key": name, "displayName": name, "active": true}
}

// comment adds a comment by name, written now.
func (f *serveJIRA) comment(name, body string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nextID++
	f.comments = append(f.comments, map[string]any{"id": strconv.Itoa(f.nextID), "author": f.user(name), "updateAuthor": f.user(name),
		"body": body, "created": time.Now().Format(jiraTime), "updated": time.Now().Format(jiraTime)})
}

// byPerfbot returns the bodies of perfbot's comments.
func (f *serveJIRA) byPerfbot() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, c := range f.comments {
		if c["author"].(map[string]any)["name"] == "perfbot" {
			out = append(out, c["body"].(string))
		}
	}
	return out
}

func (f *serveJIRA) searched() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.searches
}

func (f *serveJIRA) handler(t *testing.T) http.Handler {
	js := func(w http.ResponseWriter, code int, v any) {
		w.Header().Set("Content-Type", "application/json;charset=UTF-8")
		w.WriteHeader(code)
		_ = json.NewEncoder(w).Encode(v)
	}
	page := func() map[string]any {
		cs := slices.Clone(f.comments)
		return map[string]any{"startAt": 0, "maxResults": len(cs), "total": len(cs), "comments": cs}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /rest/api/2/search", func(w http.ResponseWriter, r *http.Request) {
		if !slices.Contains(strings.Split(r.URL.Query().Get("fields"), ","), "comment") {
			t.Errorf("search without the comment field: %s", r.URL.RawQuery)
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		f.searches++
		js(w, http.StatusOK, map[string]any{"expand": "schema,names", "startAt": 0, "maxResults": 100, "total": 1, "issues": []any{
			map[string]any{"id": "10010", "key": "STORE-1", "self": "http://" + r.Host + "/rest/api/2/issue/10010", "fields": map[string]any{
				"summary": "Faster scans", "updated": time.Now().Format(jiraTime), "attachment": []any{}, "comment": page()}}}})
	})
	mux.HandleFunc("GET /rest/api/2/myself", func(w http.ResponseWriter, r *http.Request) { js(w, http.StatusOK, f.user("perfbot")) })
	mux.HandleFunc("GET /rest/api/2/issue/STORE-1/comment", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		js(w, http.StatusOK, page())
	})
	mux.HandleFunc("POST /rest/api/2/issue/STORE-1/comment", func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			Body string `json:"body"`
		}
		if r.Header.Get("Content-Type") != "application/json" || json.NewDecoder(r.Body).Decode(&in) != nil || in.Body == "" {
			js(w, http.StatusBadRequest, map[string]any{"errorMessages": []string{}, "errors": map[string]string{"comment": "Comment body can not be empty!"}})
			return
		}
		f.comment("perfbot", in.Body)
		f.mu.Lock()
		defer f.mu.Unlock()
		js(w, http.StatusCreated, f.comments[len(f.comments)-1])
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != "perfbot" || p != "jira-token" {
			js(w, http.StatusUnauthorized, map[string]any{"errorMessages": []string{"You are not authenticated. Authentication required to perform this operation."}, "errors": map[string]string{}})
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// TestServeJIRAFalseAlarm: with venues.jira polled, "/perfbot false-alarm"
// in a comment on a polled issue marks the verdict of the latest run
// answered on that issue, as by the comment's author, and perfbot
// acknowledges it there; a user not in tracker_users is refused; neither
// is acted on again by later polls or by perfbot serve started anew.
func TestServeJIRAFalseAlarm(t *testing.T) {
	r := gitrepo.New(t)
	r.Commit("work", map[string]string{"go.mod": "module example.org/work\n\ngo 1.22\n"})
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "perfbot.db")
	ctx := context.Background()
	st, err := store.Open(ctx, store.SQLite, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	answered := storetest.AnsweredRun(t, st, "jira", "STORE-1", "ci-1")
	st.Close()

	f := &serveJIRA{}
	srv := httptest.NewServer(f.handler(t))
	t.Cleanup(srv.Close)
	addr := freeAddr(t)
	cfgFile := filepath.Join(dir, "config.yaml")
	cfg := fmt.Sprintf(`project: {repo: %q, branch: main}
suites:
  work: {preset: go, instrument: walltime, go: {bench: Work}}
service: {listen: %q, heartbeat: 1s, poll_interval: 1s}
store: {driver: sqlite, path: %q}
triggers: {tracker_users: ["jira:dev"]}
venues:
  jira: {url: %q, user: perfbot, token_env: PERFBOT_TEST_JIRA_TOKEN, deployment: server, poll: true}
`, r.Dir, addr, dbPath, srv.URL)
	if err := os.WriteFile(cfgFile, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(mainEnv, "1")
	t.Setenv("PERFBOT_TEST_JIRA_TOKEN", "jira-token")
	var serveErr bytes.Buffer
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("serve log:\n%s", serveErr.String())
		}
	})
	serve := func(body func()) {
		t.Helper()
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		done := make(chan error, 1)
		go func() {
			done <- run(ctx, []string{"serve", "--config", cfgFile}, &bytes.Buffer{}, &syncWriter{w: &serveErr})
		}()
		waitHealthy(t, addr)
		body()
		// Three more polls, each reading the comments again.
		n := f.searched()
		waitFor(t, time.Minute, "three more polls", func() bool { return f.searched() >= n+3 })
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	}
	serve(func() {
		f.comment("mallory", "/perfbot false-alarm Checksum")
		f.comment("dev", "The runner was busy.\n{code}\n/perfbot false-alarm Append\n{code}\n/perfbot false-alarm Checksum -- the runner was busy")
		waitFor(t, time.Minute, "the refusal and the acknowledgement", func() bool { return len(f.byPerfbot()) >= 2 })
	})
	serve(func() {})
	got := f.byPerfbot()
	if len(got) != 2 {
		t.Fatalf("perfbot wrote %d comments, want a refusal and an acknowledgement: %q", len(got), got)
	}
	if !strings.Contains(got[0], "tracker_users") || !strings.Contains(got[0], "mallory") {
		t.Errorf("refusal:\n%s", got[0])
	}
	if !strings.Contains(got[1], "marked 1 verdict of run") || !strings.Contains(got[1], "\n* Checksum-2 ns/op (worse") {
		t.Errorf("acknowledgement:\n%s", got[1])
	}
	st, err = store.Open(ctx, store.SQLite, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	marks, err := st.FalseAlarmsOfRun(ctx, answered.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(marks) != 1 || marks[0].By != "dev" || marks[0].Venue != "jira" || marks[0].Key.Benchmark != "Checksum-2" || marks[0].Reason != "the runner was busy" {
		t.Errorf("marks in the store: %+v", marks)
	}
}
