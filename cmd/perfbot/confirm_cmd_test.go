package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/perfbot/perfbot/internal/pgtest"
)

// TestConfirmSecondHost runs "perfbot serve" with its own workers and
// "perfbot worker --queue confirm" on a real PostgreSQL, with
// service.confirm set: a pull request that doubles the cost is measured
// worse by serve, again by the worker, and answered once, confirmed.
func TestConfirmSecondHost(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end benchmark run")
	}
	srv := pgtest.Start(t)
	t.Setenv("E2E_DATABASE_URL", srv.NewDB(t))
	cfgFile, gh, addr := costService(t, "{driver: postgres, url_env: E2E_DATABASE_URL}")
	data, err := os.ReadFile(cfgFile)
	if err != nil {
		t.Fatal(err)
	}
	cfg := strings.Replace(string(data), "$(cat {worktree}/cost)", "$(( 20000 / $(cat {worktree}/cost) ))", 1)
	cfg = strings.Replace(cfg, "stale_after: 2s}", "stale_after: 2s, embedded_workers: true, confirm: {queue: confirm, min_change: 5%}}", 1)
	if err := os.WriteFile(cfgFile, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var serveErr bytes.Buffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--config", cfgFile, "--name", "host-a"}, &bytes.Buffer{}, &syncWriter{w: &serveErr})
	}()
	waitHealthy(t, addr)
	cmd := exec.Command(os.Args[0], "worker", "--config", cfgFile, "--name", "host-b", "--queue", "confirm")
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
		if t.Failed() {
			t.Logf("worker log:\n%s\nserve log:\n%s", log.String(), serveErr.String())
		}
	})
	deliverComment(t, addr, workComment(t), "confirm-1")
	var body string
	waitFor(t, 90*time.Second, "the confirmed answer", func() bool {
		gh.mu.Lock()
		defer gh.mu.Unlock()
		for _, b := range gh.comments {
			if strings.Contains(b, "Confirmed on a second host") {
				body = b
			}
		}
		return body != ""
	})
	t.Logf("answer:\n%s", body)
	gh.mu.Lock()
	defer gh.mu.Unlock()
	if gh.created != 1 || !strings.Contains(body, "host-b") || !strings.Contains(body, "Work +100%") {
		t.Errorf("%d comments; answer:\n%s", gh.created, body)
	}
}
