package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// fakeGitHub is GitHub's REST API for one pull request's comments and
// statuses, as GitHub Enterprise serves it under /api/v3.
type fakeGitHub struct {
	mu       sync.Mutex
	comments map[int64]string
	nextID   int64
	calls    []string
	statuses []string
}

func (f *fakeGitHub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, r.Method+" "+r.URL.Path)
	if r.Header.Get("Authorization") != "Bearer test-token-123456" {
		http.Error(w, `{"message":"Bad credentials"}`, http.StatusUnauthorized)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	body, _ := io.ReadAll(r.Body)
	var in struct{ Body, State, Description string }
	_ = json.Unmarshal(body, &in)
	switch {
	case r.Method == "GET" && r.URL.Path == "/api/v3/user":
		_ = json.NewEncoder(w).Encode(map[string]any{"login": "perfbot-ci", "id": 1, "type": "User"})
	case r.Method == "GET" && r.URL.Path == "/api/v3/repos/acme/store/issues/7/comments":
		var out []map[string]any
		for id, b := range f.comments {
			out = append(out, map[string]any{"id": id, "body": b, "user": map[string]any{"login": "perfbot-ci"}, "html_url": fmt.Sprintf("https://github.example/acme/store/pull/7#issuecomment-%d", id)})
		}
		_ = json.NewEncoder(w).Encode(out)
	case r.Method == "POST" && r.URL.Path == "/api/v3/repos/acme/store/issues/7/comments":
		f.nextID++
		id := 1000 + f.nextID
		f.comments[id] = in.Body
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(map[string]any{"id": id, "body": in.Body, "user": map[string]any{"login": "perfbot-ci"}, "html_url": fmt.Sprintf("https://github.example/acme/store/pull/7#issuecomment-%d", id)})
	case r.Method == "PATCH" && strings.HasPrefix(r.URL.Path, "/api/v3/repos/acme/store/issues/comments/"):
		var id int64
		fmt.Sscan(strings.TrimPrefix(r.URL.Path, "/api/v3/repos/acme/store/issues/comments/"), &id)
		if _, ok := f.comments[id]; !ok {
			http.Error(w, `{"message":"Not Found"}`, http.StatusNotFound)
			return
		}
		f.comments[id] = in.Body
		_ = json.NewEncoder(w).Encode(map[string]any{"id": id, "body": in.Body, "user": map[string]any{"login": "perfbot-ci"}, "html_url": fmt.Sprintf("https://github.example/acme/store/pull/7#issuecomment-%d", id)})
	case r.Method == "GET" && r.URL.Path == "/api/v3/repos/acme/store/pulls/7":
		_ = json.NewEncoder(w).Encode(map[string]any{"number": 7, "head": map[string]any{"sha": "6dcb09b5b57875f334f61aebed695e2e4193db5e"}})
	case r.Method == "POST" && strings.HasPrefix(r.URL.Path, "/api/v3/repos/acme/store/statuses/"):
		f.statuses = append(f.statuses, in.State+": "+in.Description)
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write([]byte(`{"id": 1, "state": "` + in.State + `"}`))
	default:
		http.Error(w, `{"message":"Not Found"}`, http.StatusNotFound)
	}
}

// TestReportPostsToGitHubOnceAndEditsOnRerun posts a report to a pull
// request twice: the second run edits the first comment.
func TestReportPostsToGitHubOnceAndEditsOnRerun(t *testing.T) {
	fake := &fakeGitHub{comments: map[int64]string{}}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	t.Setenv("PERFBOT_GITHUB_URL", srv.URL)
	t.Setenv("GITHUB_TOKEN", "test-token-123456")
	args := []string{"report", "--post", "github:acme/store#7", "testdata/wal-base.txt", "testdata/wal-patch.txt"}
	for i := 0; i < 2; i++ {
		var stdout, stderr bytes.Buffer
		if err := run(context.Background(), args, &stdout, &stderr); err != nil {
			t.Fatalf("run %d: %v\n%s", i, err, stderr.String())
		}
		if !strings.Contains(stderr.String(), "posted to github:acme/store#7") {
			t.Errorf("run %d: stderr %q does not say where it posted", i, stderr.String())
		}
	}
	if len(fake.comments) != 1 {
		t.Fatalf("%d comments on the pull request, want 1 edited in place; calls: %v", len(fake.comments), fake.calls)
	}
	for _, body := range fake.comments {
		if !strings.Contains(body, "Append") || !strings.Contains(body, "<!-- perfbot:") {
			t.Errorf("comment lacks the table or the marker:\n%s", body)
		}
		if strings.Contains(body, "test-token-123456") {
			t.Error("the token leaked into the comment")
		}
	}
	// Result files name no commit that was measured, so no commit
	// status speaks for the pull request's head.
	if len(fake.statuses) != 0 {
		t.Errorf("statuses = %q, want none: nothing says which commit the files measured", fake.statuses)
	}
}

func TestPostUnconfiguredVenueNamesTheSetting(t *testing.T) {
	t.Setenv("GITHUB_TOKEN", "")
	t.Setenv("PERFBOT_GITHUB_URL", "")
	var stderr bytes.Buffer
	err := run(context.Background(), []string{"report", "--post", "github:acme/store#7", "testdata/wal-base.txt", "testdata/wal-patch.txt"}, io.Discard, &stderr)
	if err == nil || !strings.Contains(err.Error(), "GITHUB_TOKEN") {
		t.Errorf("err = %v, want it to name GITHUB_TOKEN", err)
	}
	err = run(context.Background(), []string{"report", "--post", "svn:x", "testdata/wal-base.txt", "testdata/wal-patch.txt"}, io.Discard, &stderr)
	if code := exitCode(err, &stderr); code != 2 {
		t.Errorf("unknown venue: exit %d, want 2", code)
	}
}
