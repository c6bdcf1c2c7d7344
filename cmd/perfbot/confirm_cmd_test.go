package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/perfbot/perfbot/internal/gitrepo"
	"github.com/perfbot/perfbot/internal/pgtest"
	"github.com/perfbot/perfbot/report"
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

// TestCompareSaysConfirmed: through perfbot compare, a regression the
// confirmation rerun finds again is answered as confirmed in every
// rendering (--out), and one seen only by the first run is answered as
// noisy after a rerun. The suite's command counts its calls in a file
// outside the worktrees; the candidate (whose tree has the file "slow")
// is 50% slower in its first `slow` calls.
func TestCompareSaysConfirmed(t *testing.T) {
	r := gitrepo.New(t)
	r.Commit("work", map[string]string{"work": "1\n"})
	r.Git("checkout", "-q", "-b", "slower")
	r.Commit("same work, a marker", map[string]string{"slow": "1\n"})
	r.Git("checkout", "-q", "main")
	calls := filepath.Join(t.TempDir(), "calls")
	cache := t.TempDir()
	compare := func(t *testing.T, slow int, flags ...string) (string, string) {
		t.Helper()
		if err := os.WriteFile(calls, []byte("0\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		script := "n=$(cat " + calls + "); echo $((n+1)) > " + calls + "; extra=0; " +
			"if [ -f {worktree}/slow ] && [ $n -lt " + strconv.Itoa(slow) + " ]; then extra=50; fi; " +
			"printf 'BenchmarkWork 1 %s ns/op\\n' $((100+extra+n%3))"
		config := filepath.Join(t.TempDir(), "perfbot.yaml")
		yaml := "suites:\n  work:\n    command: " + strconv.Quote(script) + "\n    parser: gobench\n    count: 6\n"
		if err := os.WriteFile(config, []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		out := t.TempDir()
		var stdout, stderr bytes.Buffer
		err := run(t.Context(), append([]string{"compare", "--config", config, "--repo", r.Dir, "--base", "main", "--head", "slower",
			"--no-sandbox", "--seed", "7", "--out", out, "--cache-dir", cache, "-q"}, flags...), &stdout, &stderr)
		if err != nil && exitCode(err, &stderr) != 1 {
			t.Fatalf("compare: %v\n%s", err, stderr.String())
		}
		return stdout.String(), out
	}
	formats := []string{"markdown", "jira", "reviewboard", "text", "html"}
	check := func(t *testing.T, stdout, out, want string) {
		t.Helper()
		// Each venue escapes its own way; text wraps long lines.
		plain := func(s string) string {
			s = strings.NewReplacer("\\", "", "&#43;", "+").Replace(s)
			return strings.Join(strings.Fields(s), " ")
		}
		if !strings.Contains(plain(stdout), want) {
			t.Errorf("the printed answer does not say %q:\n%s", want, stdout)
		}
		for _, fm := range formats {
			data, err := os.ReadFile(filepath.Join(out, report.FileName(fm)))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(plain(string(data)), want) {
				t.Errorf("the %s answer does not say %q:\n%s", fm, want, data)
			}
		}
	}

	// The first run alone, to count its calls.
	stdout, _ := compare(t, 1<<30, "--no-confirm")
	if strings.Contains(stdout, "confirmed") || !strings.Contains(stdout, "Work +50% time") {
		t.Fatalf("without confirmation, the answer is not the first run's regression:\n%s", stdout)
	}
	data, err := os.ReadFile(calls)
	if err != nil {
		t.Fatal(err)
	}
	first, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}

	t.Run("confirmed", func(t *testing.T) {
		stdout, out := compare(t, 1<<30)
		check(t, stdout, out, "Work +50% time (confirmed by a second run)")
	})
	t.Run("seen once", func(t *testing.T) {
		stdout, out := compare(t, first)
		check(t, stdout, out, "Work noisy (a rerun did not confirm it worse)")
	})
}
