package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/perfbot/perfbot/internal/gitrepo"
	"github.com/perfbot/perfbot/store"
)

// TestServeRestartedSQLite: the embedded default, "perfbot serve" on
// SQLite, is killed with SIGKILL in the middle of a job and started again;
// it runs the job again and the fake GitHub receives exactly one answer.
func TestServeRestartedSQLite(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end benchmark run")
	}
	db := filepath.Join(t.TempDir(), "perfbot.db")
	cfgFile, gh, addr := costService(t, fmt.Sprintf("{driver: sqlite, path: %q}", db))

	var logs []*bytes.Buffer
	start := func() *exec.Cmd {
		cmd := exec.Command(os.Args[0], "serve", "--config", cfgFile)
		var log bytes.Buffer
		cmd.Stdout, cmd.Stderr = &log, &log
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		logs = append(logs, &log)
		waitHealthy(t, addr)
		return cmd
	}
	first := start()
	var second *exec.Cmd
	t.Cleanup(func() {
		if second != nil {
			second.Process.Signal(syscall.SIGTERM)
			second.Wait()
		}
		if t.Failed() {
			for i, l := range logs {
				t.Logf("log of serve %d:\n%s", i+1, l.String())
			}
		}
	})

	deliverComment(t, addr, workComment(t), "restart-1")

	ctx := context.Background()
	st, err := store.Open(ctx, store.SQLite, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	key := "github:acme/store#12/comment/1987654321"
	waitFor(t, 60*time.Second, "the job to start", func() bool {
		runs, _ := st.RunsByKey(ctx, key)
		return len(runs) == 1 && runs[0].Status == store.StatusRunning
	})
	time.Sleep(1500 * time.Millisecond)
	first.Process.Signal(syscall.SIGKILL)
	first.Wait()
	second = start()

	var run store.Run
	waitFor(t, 90*time.Second, "the job to finish after the restart", func() bool {
		runs, _ := st.RunsByKey(ctx, key)
		if len(runs) == 1 && runs[0].Status == store.StatusDone {
			run = runs[0]
			return true
		}
		return false
	})
	if run.Attempt != 2 {
		t.Errorf("finished on attempt %d, want 2", run.Attempt)
	}
	waitFor(t, 20*time.Second, "the answer", func() bool {
		gh.mu.Lock()
		defer gh.mu.Unlock()
		return gh.created > 0
	})
	time.Sleep(500 * time.Millisecond)
	gh.mu.Lock()
	defer gh.mu.Unlock()
	if gh.created != 1 || len(gh.comments) != 1 {
		t.Errorf("comments created %d; want exactly one answer", gh.created)
	}
}

// costService sets up what the service tests share: a repository whose
// pull request 12 halves a "cost" file, a suite whose benchmark reports
// that cost, a fake GitHub Enterprise that serves the pull request, and a
// config file with the given store section. It sets the environment the
// config names and returns the config file, the fake and the service's
// listen address.
func costService(t *testing.T, store string) (cfgFile string, gh *e2eGitHub, addr string) {
	t.Helper()
	r := gitrepo.New(t)
	r.Commit("cost", map[string]string{"cost": "200\n"})
	r.Git("checkout", "-q", "-b", "pull/12/head")
	head := r.Commit("halve the cost", map[string]string{"cost": "100\n"})
	r.Git("checkout", "-q", "main")
	gh = &e2eGitHub{comments: map[int64]string{}, headSHA: head}
	fake := httptest.NewServer(http.StripPrefix("/api/v3", gh.handler(t)))
	t.Cleanup(fake.Close)

	addr = freeAddr(t)
	cfgFile = filepath.Join(t.TempDir(), "config.yaml")
	cfg := fmt.Sprintf(`project: {repo: %q, branch: main}
suites:
  work:
    command: "sleep 0.4; printf 'BenchmarkWork 1 %%s ns/op\n' $(cat {worktree}/cost)"
    parser: gobench
    count: 5
sandbox: {mode: none}
service: {listen: %q, heartbeat: 250ms, stale_after: 2s}
store: %s
venues:
  github: {repo: acme/store, url: %q, token_env: E2E_GH_TOKEN, webhook_secret_env: E2E_WEBHOOK_SECRET}
`, r.Dir, addr, store, fake.URL+"/api/v3/")
	if err := os.WriteFile(cfgFile, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(mainEnv, "1")
	t.Setenv("E2E_GH_TOKEN", "e2e-token")
	t.Setenv("E2E_WEBHOOK_SECRET", "e2e-secret")
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	return cfgFile, gh, addr
}
