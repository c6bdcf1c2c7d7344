package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfbot/perfbot/internal/gitrepo"
	"github.com/perfbot/perfbot/store"
)

// TestServeForcePushAfterApproval drives "perfbot serve": a maintainer's
// "/perfbot run" approves the pull request's head A, and the author
// force-pushes B right after the maintainer's permission was looked up,
// before the job starts. The job measures A, the commit approved (its cost, not B's), and
// the run and the answer name A. A run approved for a commit the
// repository no longer has is answered that the commit is gone, and
// nothing is measured.
func TestServeForcePushAfterApproval(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end benchmark run")
	}
	r := gitrepo.New(t)
	r.Commit("cost", map[string]string{"cost": "200\n"})
	r.Git("checkout", "-q", "-b", "pull/12/head")
	approved := r.Commit("halve the cost", map[string]string{"cost": "100\n"})
	r.Git("checkout", "-q", "main")

	gh := &e2eGitHub{comments: map[int64]string{}, headSHA: approved}
	var pushed string
	gh.afterApproval = func() {
		// The author force-pushes a commit that nobody approved.
		r.Git("checkout", "-q", "pull/12/head")
		r.Git("reset", "-q", "--hard", "main")
		pushed = r.Commit("cost almost nothing", map[string]string{"cost": "7\n"})
		r.Git("checkout", "-q", "main")
		gh.headSHA = pushed
	}
	fake := httptest.NewServer(http.StripPrefix("/api/v3", gh.handler(t)))
	defer fake.Close()

	dir := t.TempDir()
	addr := freeAddr(t)
	db := filepath.Join(dir, "perfbot.db")
	cfgFile := filepath.Join(dir, "config.yaml")
	cfg := fmt.Sprintf(`project: {repo: %q, branch: main}
suites:
  work:
    command: "printf 'BenchmarkWork 1 %%s ns/op\n' $(cat {worktree}/cost)"
    parser: gobench
    count: 3
sandbox: {mode: none}
service: {listen: %q, heartbeat: 250ms}
store: {driver: sqlite, path: %q}
venues:
  github: {repo: acme/store, url: %q, token_env: E2E_GH_TOKEN, webhook_secret_env: E2E_WEBHOOK_SECRET}
`, r.Dir, addr, db, fake.URL+"/api/v3/")
	if err := os.WriteFile(cfgFile, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(mainEnv, "1")
	t.Setenv("E2E_GH_TOKEN", "e2e-token")
	t.Setenv("E2E_WEBHOOK_SECRET", "e2e-secret")
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	startServe(t, cfgFile, addr)

	ctx := context.Background()
	st, err := store.Open(ctx, store.SQLite, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	finished := func(key string) store.Run {
		t.Helper()
		var run store.Run
		waitFor(t, 2*time.Minute, key+" to finish", func() bool {
			runs, _ := st.RunsByKey(ctx, key)
			if len(runs) == 1 && runs[0].Status != store.StatusQueued && runs[0].Status != store.StatusRunning {
				run = runs[0]
				return true
			}
			return false
		})
		return run
	}
	answer := func(key string) string {
		t.Helper()
		var body string
		waitFor(t, 2*time.Minute, "the answer to "+key, func() bool {
			gh.mu.Lock()
			defer gh.mu.Unlock()
			for _, b := range gh.comments {
				if strings.Contains(b, "perfbot:"+key) && !strings.Contains(b, "running") && !strings.Contains(b, "queued") {
					body = b
					return true
				}
			}
			return false
		})
		return body
	}

	const form = "application/x-www-form-urlencoded"
	if code, text := deliverEvent(t, addr, "issue_comment", form, commentEvent(t, 601, "maintainer", "/perfbot run work"), "approve-1"); code != http.StatusOK || text != "queued" {
		t.Fatalf("run: %d %q", code, text)
	}
	key := "github:acme/store#12/comment/601"
	run := finished(key)
	if pushed == "" || pushed == approved {
		t.Fatalf("the force-push did not happen between the approval and the start")
	}
	if run.Status != store.StatusDone || run.CandidateCommit != approved {
		t.Errorf("run %s measured %s (status %s), want %s, the commit approved, not %s, pushed after the approval",
			key, run.CandidateCommit, run.Status, approved, pushed)
	}
	body := answer(key)
	if !strings.Contains(body, "pull/12/head "+approved[:10]) {
		t.Errorf("the answer does not name the commit measured (%s) as the pull request's side:\n%s", approved[:10], body)
	}

	// A commit that the repository does not have (collected after a
	// force-push) is not measured, and the answer says why.
	gh.mu.Lock()
	gh.headSHA = strings.Repeat("d", 40)
	gh.mu.Unlock()
	if code, text := deliverEvent(t, addr, "issue_comment", form, commentEvent(t, 602, "maintainer", "/perfbot run work"), "approve-2"); code != http.StatusOK || text != "queued" {
		t.Fatalf("run: %d %q", code, text)
	}
	key = "github:acme/store#12/comment/602"
	body = answer(key)
	if !strings.Contains(body, "dddddddddddd") || !strings.Contains(body, "is no longer in") {
		t.Errorf("the answer to a run of a commit that is gone does not say so:\n%s", body)
	}
	if runs, _ := st.RunsByKey(ctx, key); len(runs) == 1 && runs[0].CandidateCommit != "" {
		t.Errorf("a run of a commit that is gone measured %s", runs[0].CandidateCommit)
	}
}
