package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	ghintake "github.com/perfbot/perfbot/intake/github"
	"github.com/perfbot/perfbot/internal/gitrepo"
	"github.com/perfbot/perfbot/venue/github"
)

// TestServeOwnAnswerOnMeasuredCommit: perfbot serve, with venues.github.login
// unset, takes a maintainer's /perfbot run on a pull request whose author
// had planted the request's marker in an old comment of theirs, and the
// author pushes a 100 times slower head while the run goes on. perfbot
// writes and edits a comment of its own account, leaves the planted one as
// it was, puts its statuses on the commit it measured (never on the pushed
// head) and says in the answer that the head moved.
func TestServeOwnAnswerOnMeasuredCommit(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end benchmark run")
	}
	r := gitrepo.New(t)
	r.Commit("cost", map[string]string{"cost": "200\n"})
	r.Git("checkout", "-q", "-b", "pull/12/head")
	measured := r.Commit("halve the cost", map[string]string{"cost": "100\n"})
	r.Git("checkout", "-q", "main")

	key := ghintake.JobKey("acme/store", 12, 1987654321) // the comment of workComment
	planted := github.Marker(key) + "\nAn old comment of the pull request's author."
	gh := &e2eGitHub{comments: map[int64]string{6999: planted}, order: []int64{6999}, authors: map[int64]string{6999: "octocat"}, headSHA: measured}
	fake := httptest.NewServer(http.StripPrefix("/api/v3", gh.handler(t)))
	defer fake.Close()

	dir := t.TempDir()
	addr := freeAddr(t)
	cfgFile := filepath.Join(dir, "config.yaml")
	cfg := fmt.Sprintf(`project: {repo: %q, branch: main}
suites:
  work:
    command: "sleep 0.4; printf 'BenchmarkWork 1 %%s ns/op\n' $(cat {worktree}/cost)"
    parser: gobench
    count: 5
sandbox: {mode: none}
service: {listen: %q, heartbeat: 250ms}
store: {driver: sqlite, path: %q}
venues:
  github: {repo: acme/store, url: %q, token_env: E2E_GH_TOKEN, webhook_secret_env: E2E_WEBHOOK_SECRET}
`, r.Dir, addr, filepath.Join(dir, "perfbot.db"), fake.URL+"/api/v3/")
	if err := os.WriteFile(cfgFile, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(mainEnv, "1")
	t.Setenv("E2E_GH_TOKEN", "e2e-token")
	t.Setenv("E2E_WEBHOOK_SECRET", "e2e-secret")
	t.Setenv("XDG_CACHE_HOME", t.TempDir())

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logs := &syncWriter{w: &bytes.Buffer{}}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("serve log:\n%s", logs.w.String())
		}
	})
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"serve", "--config", cfgFile}, &bytes.Buffer{}, logs) }()
	waitHealthy(t, addr)
	if code := deliverComment(t, addr, workComment(t), "own-1"); code != http.StatusOK {
		t.Fatalf("webhook: status %d", code)
	}

	// Once perfbot has answered (the request was approved for the head it
	// read), the author pushes a far slower head.
	own := func(want string) func() bool {
		return func() bool {
			gh.mu.Lock()
			defer gh.mu.Unlock()
			for _, id := range gh.order {
				if _, other := gh.authors[id]; !other && strings.Contains(gh.comments[id], want) {
					return true
				}
			}
			return false
		}
	}
	waitFor(t, 2*time.Minute, "perfbot's own live answer", own(github.Marker(key)))
	r.Git("checkout", "-q", "pull/12/head")
	pushed := r.Commit("cost: 100 times slower", map[string]string{"cost": "10000\n"})
	r.Git("checkout", "-q", "main")
	gh.mu.Lock()
	gh.headSHA = pushed
	gh.mu.Unlock()

	waitFor(t, 2*time.Minute, "the result in perfbot's own comment", own("Work"))
	waitFor(t, 30*time.Second, "the result's status", func() bool {
		gh.mu.Lock()
		defer gh.mu.Unlock()
		n := len(gh.statuses)
		return n > 0 && (strings.HasSuffix(gh.statuses[n-1], ":success") || strings.HasSuffix(gh.statuses[n-1], ":failure"))
	})
	cancel()
	if err := <-done; err != nil {
		t.Errorf("serve: %v", err)
	}
	gh.mu.Lock()
	defer gh.mu.Unlock()
	if gh.comments[6999] != planted {
		t.Errorf("the planted comment was edited:\n%s", gh.comments[6999])
	}
	var answer string
	for _, id := range gh.order {
		if _, other := gh.authors[id]; !other {
			answer = gh.comments[id]
		}
	}
	moved := fmt.Sprintf("measured %s; the pull request's head is now %s: a new run needs a new `/perfbot run`", measured[:7], pushed[:7])
	if !strings.Contains(answer, moved) || !strings.Contains(answer, measured[:10]) || gh.created != 1 {
		t.Errorf("perfbot's answer (of %d created) lacks the measured commit or the moved head %q:\n%s", gh.created, moved, answer)
	}
	last := gh.statuses[len(gh.statuses)-1]
	if last != measured+":success" {
		t.Errorf("statuses %q: want the result's success on the measured %s", gh.statuses, measured)
	}
	for _, st := range gh.statuses {
		if strings.HasPrefix(st, pushed) {
			t.Errorf("status %q on the head pushed during the run, never measured", st)
		}
	}
}
