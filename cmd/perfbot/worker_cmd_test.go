package main

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/perfbot/perfbot/internal/pgtest"
	"github.com/perfbot/perfbot/store"
)

// TestWorkersPostgres runs "perfbot serve" and two "perfbot worker"
// processes on a real PostgreSQL. A pull request comment queues a job; the
// worker running it is killed with SIGKILL in the middle; the other worker
// runs the job again and the fake GitHub receives exactly one answer.
func TestWorkersPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end benchmark run")
	}
	srv := pgtest.Start(t)
	dsn := srv.NewDB(t)

	t.Setenv("E2E_DATABASE_URL", dsn)
	cfgFile, gh, addr := costService(t, "{driver: postgres, url_env: E2E_DATABASE_URL}")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var serveErr bytes.Buffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--config", cfgFile}, &bytes.Buffer{}, &syncWriter{w: &serveErr})
	}()
	waitFor(t, 20*time.Second, "serve to answer /healthz", func() bool {
		resp, err := http.Get("http://" + addr + "/healthz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})

	workers := map[string]*exec.Cmd{}
	logs := map[string]*bytes.Buffer{}
	for _, name := range []string{"host-a", "host-b"} {
		cmd := exec.Command(os.Args[0], "worker", "--config", cfgFile, "--name", name)
		var log bytes.Buffer
		cmd.Stdout, cmd.Stderr = &log, &log
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		workers[name], logs[name] = cmd, &log
	}
	t.Cleanup(func() {
		for name, cmd := range workers {
			cmd.Process.Signal(syscall.SIGTERM)
			cmd.Wait()
			if t.Failed() {
				t.Logf("log of %s:\n%s", name, logs[name].String())
			}
		}
		if t.Failed() {
			t.Logf("serve log:\n%s", serveErr.String())
		}
	})

	body, err := os.ReadFile("../../intake/github/testdata/issue_comment.json")
	if err != nil {
		t.Fatal(err)
	}
	body = bytes.Replace(body, []byte("/perfbot run wal base=main"), []byte("/perfbot run work base=main"), 1)
	mac := hmac.New(sha256.New, []byte("e2e-secret"))
	mac.Write(body)
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/webhook/github", bytes.NewReader(body))
	req.Header.Set("X-GitHub-Event", "issue_comment")
	req.Header.Set("X-GitHub-Delivery", "pg-1")
	req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()

	st, err := store.Open(ctx, store.Postgres, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	key := "github:acme/store#12/comment/1987654321"
	var victim string
	waitFor(t, 60*time.Second, "a worker to start the job", func() bool {
		runs, _ := st.RunsByKey(ctx, key)
		if len(runs) == 1 && runs[0].Status == store.StatusRunning {
			victim = runs[0].Worker
		}
		return victim != ""
	})
	time.Sleep(1500 * time.Millisecond) // in the middle of the rounds
	workers[victim].Process.Signal(syscall.SIGKILL)
	workers[victim].Wait()
	delete(workers, victim)

	var run store.Run
	waitFor(t, 90*time.Second, "the job to finish on the other worker", func() bool {
		runs, _ := st.RunsByKey(ctx, key)
		if len(runs) == 1 && runs[0].Status == store.StatusDone {
			run = runs[0]
			return true
		}
		return false
	})
	t.Logf("job started on %s, which was killed; finished on %s, attempt %d", victim, run.Worker, run.Attempt)
	if run.Worker == victim || run.Attempt != 2 {
		t.Errorf("finished by %s on attempt %d; want the other worker, attempt 2", run.Worker, run.Attempt)
	}
	res, err := st.Results(ctx, run.ID)
	if err != nil || len(res) != 2 {
		t.Fatalf("results = %d, %v; want base and candidate", len(res), err)
	}
	for _, r := range res {
		if len(r.Samples) != 5 {
			t.Errorf("%s %s: %d samples stored, want all 5 rounds", r.Variant, r.Benchmark, len(r.Samples))
		}
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
		t.Fatalf("comments created %d; want exactly one answer", gh.created)
	}
	for _, b := range gh.comments {
		if !strings.Contains(b, "Work") || !strings.Contains(b, "better") {
			t.Errorf("answer:\n%s", b)
		}
	}
}
