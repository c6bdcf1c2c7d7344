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
	waitHealthy(t, addr)

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

	deliverComment(t, addr, workComment(t), "pg-1")

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
