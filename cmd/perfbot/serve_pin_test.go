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

// TestServePollOldCommentsUpdatedLately drives "perfbot serve" with
// venues.github.poll: 150 old comments edited within the hour, an old
// comment of a reader and one of a maintainer both edited into
// "/perfbot run", and a maintainer's new "/perfbot run work". Only the new
// command runs: the poll reads every page sorted by update, and an edited
// comment is no command (GitHub does not say who edited it).
func TestServePollOldCommentsUpdatedLately(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end benchmark run")
	}
	r := gitrepo.New(t)
	r.Commit("cost", map[string]string{"cost": "200\n"})
	r.Git("checkout", "-q", "-b", "pull/12/head")
	head := r.Commit("halve the cost", map[string]string{"cost": "100\n"})
	r.Git("checkout", "-q", "main")

	now := time.Now().UTC().Truncate(time.Second)
	gh := &e2eGitHub{comments: map[int64]string{}, headSHA: head, roles: map[string]string{"drive-by": "read"}}
	for i := range 150 {
		gh.polled = append(gh.polled, e2eComment{ID: int64(100 + i), Login: "writer", Body: fmt.Sprintf("old remark %d", i),
			Created: now.Add(-48 * time.Hour).Add(time.Duration(i) * time.Second), Updated: now.Add(-30 * time.Minute).Add(time.Duration(i) * time.Second)})
	}
	gh.polled = append(gh.polled,
		e2eComment{ID: 300, Login: "drive-by", Body: "/perfbot run work", Created: now.Add(-47 * time.Hour), Updated: now.Add(-10 * time.Second)},
		e2eComment{ID: 301, Login: "maintainer", Body: "/perfbot run work", Created: now.Add(-46 * time.Hour), Updated: now.Add(-5 * time.Second)},
		e2eComment{ID: 400, Login: "maintainer", Body: "/perfbot run work", Created: now, Updated: now})
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
service: {listen: %q, heartbeat: 250ms, poll_interval: 1s}
store: {driver: sqlite, path: %q}
venues:
  github: {repo: acme/store, url: %q, token_env: E2E_GH_TOKEN, poll: true}
`, r.Dir, addr, db, fake.URL+"/api/v3/")
	if err := os.WriteFile(cfgFile, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(mainEnv, "1")
	t.Setenv("E2E_GH_TOKEN", "e2e-token")
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	startServe(t, cfgFile, addr)

	ctx := context.Background()
	st, err := store.Open(ctx, store.SQLite, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	key := "github:acme/store#12/comment/400"
	waitFor(t, 2*time.Minute, key+" to finish", func() bool {
		runs, _ := st.RunsByKey(ctx, key)
		return len(runs) == 1 && runs[0].Status == store.StatusDone
	})
	if cursor, _ := st.ScheduleLast(ctx, "github-poll:acme/store"); !cursor.Equal(now) {
		t.Errorf("poll cursor %v, want the last update listed, %v", cursor, now)
	}
	// Let two more polls pass: nothing else is taken in.
	gh.mu.Lock()
	lists := gh.lists
	gh.mu.Unlock()
	waitFor(t, time.Minute, "two more polls", func() bool {
		gh.mu.Lock()
		defer gh.mu.Unlock()
		return gh.lists >= lists+2
	})
	for _, id := range []int{300, 301} {
		if runs, _ := st.RunsByKey(ctx, fmt.Sprintf("github:acme/store#12/comment/%d", id)); len(runs) != 0 {
			t.Errorf("edited comment %d ran: %+v", id, runs)
		}
	}
	gh.mu.Lock()
	defer gh.mu.Unlock()
	for _, b := range gh.comments {
		if strings.Contains(b, "drive-by") {
			t.Errorf("a reply to the edited comment of a reader: %q", b)
		}
	}
	if len(gh.reacted) != 1 {
		t.Errorf("reactions %q, want one rocket, for comment 400", gh.reacted)
	}
}
