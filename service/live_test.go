package service

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/internal/fake/githubfake"
	"github.com/perfbot/perfbot/internal/servicetest"
	"github.com/perfbot/perfbot/internal/testwait"
	"github.com/perfbot/perfbot/job"
	"github.com/perfbot/perfbot/job/child"
	"github.com/perfbot/perfbot/job/jobspec"
	"github.com/perfbot/perfbot/store"
	"github.com/perfbot/perfbot/target"
	"github.com/perfbot/perfbot/venue/github"
	"github.com/perfbot/perfbot/venue/retry"
)

// liveService runs a serve with embedded workers on SQLite, answering
// through the real GitHub poster to the fake f, with bench as its
// benchmarker.
func liveService(t *testing.T, f *githubfake.Comments, bench Benchmarker) (*Service, context.CancelFunc) {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	gp, err := github.New(github.Config{BaseURL: srv.URL + "/api/v3/", Token: "t0ken", Retry: retry.Policy{Attempts: 2, Base: time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	cfg := servicetest.Config("serve", store.SQLite, filepath.Join(t.TempDir(), "perfbot.db"), true)
	cfg.Service.AnswerEditInterval = 200 * time.Millisecond
	cfg.Service.MaxAttempts = 1
	svc, err := Open(context.Background(), cfg, ModeServe, Deps{Benchmarker: bench,
		Poster: PosterFunc(func(ctx context.Context, to target.Target, msg answer.Answer) (string, error) {
			return gp.Post(ctx, to, msg)
		})})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- svc.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-done
		svc.Close()
	})
	return svc, cancel
}

// waitComment waits until the pull request's only comment contains want.
func waitComment(t *testing.T, f *githubfake.Comments, want string) string {
	t.Helper()
	var bodies []string
	defer func() {
		if t.Failed() {
			t.Logf("comments: %q", bodies)
		}
	}()
	// The comment's edits are progress too: the live status moves.
	edits := func() string { return strings.Join(bodies, "\x00") }
	testwait.Until(t, 30*time.Second, fmt.Sprintf("a comment with %q", want), func() bool {
		bodies, _ = f.Snapshot()
		if len(bodies) > 1 {
			t.Fatalf("%d comments, want one answer edited in place: %q", len(bodies), bodies)
		}
		return len(bodies) == 1 && strings.Contains(bodies[0], want)
	}, edits)
	return bodies[0]
}

// TestLiveAnswer: a request waiting behind another job is answered at
// once as queued, with its position; while it runs the same comment shows
// its progress; it ends as that one comment holding the result.
func TestLiveAnswer(t *testing.T) {
	f := &githubfake.Comments{Comments: map[int64]string{}}
	release := map[string]chan struct{}{"first": make(chan struct{}), "second": make(chan struct{})}
	svc, _ := liveService(t, f, BenchmarkerFunc(func(ctx context.Context, spec jobspec.Spec, progress job.ProgressFunc) (*compare.Comparison, error) {
		progress(job.Progress{Stage: "run", Suite: "wal", Variant: "candidate", Round: 2, Rounds: 5,
			Elapsed: 90 * time.Second, Remaining: 4 * time.Minute})
		select {
		case <-release[spec.Title]:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return &compare.Comparison{Base: "base", Candidates: []string{"patch"}, Summary: []compare.Tally{{Variant: "patch", Better: 2}}}, nil
	}))
	ctx := context.Background()
	if _, _, err := svc.Enqueue(ctx, JobSpec{Key: "nightly", Title: "first", Source: "schedule"}); err != nil {
		t.Fatal(err)
	}
	waitRun(t, svc.Store(), "nightly", 30*time.Second, "running", func(r store.Run) bool { return r.Status == store.StatusRunning })
	spec := JobSpec{Key: "github:acme/store#3/comment/5", Targets: []target.Target{target.MustParse("github:acme/store#3")}, Title: "second", Source: "github"}
	if _, _, err := svc.Enqueue(ctx, spec); err != nil {
		t.Fatal(err)
	}
	waitComment(t, f, "**perfbot: queued**: position 1 in the queue (1 job running)")
	if st, err := svc.Status(ctx, target.MustParse("github:acme/store#3")); err != nil || st != "queued: second: position 1 in the queue (1 job running)" {
		t.Errorf("status = %q, %v", st, err)
	}
	close(release["first"])
	body := waitComment(t, f, "**perfbot: running**: suite wal, round 2 of 5 (candidate), 1m30s elapsed, about 4m0s left")
	if !strings.HasPrefix(body, github.Marker(spec.Key)) {
		t.Errorf("running answer lacks the marker: %q", body)
	}
	if st, _ := svc.Status(ctx, target.MustParse("github:acme/store#3")); !strings.HasPrefix(st, "running: second: suite wal, round 2 of 5") {
		t.Errorf("status while running = %q", st)
	}
	close(release["second"])
	waitComment(t, f, "patch: 2 better, 0 worse")
	servicetest.WaitAnswered(t, svc.Store(), spec.Key)
	if bodies, edits := f.Snapshot(); len(bodies) != 1 || edits < 2 {
		t.Errorf("comments %q after %d edits; want one, edited from queued to running to the result", bodies, edits)
	}
	if st, _ := svc.Status(ctx, target.MustParse("github:acme/store#3")); !strings.HasPrefix(st, "no perfbot job") {
		t.Errorf("status after the result = %q", st)
	}
}

// TestCancelRunningJob: cancelling the jobs of a pull request stops its
// running benchmark (its process is killed) and edits the answer to say
// it was cancelled, and by whom.
func TestCancelRunningJob(t *testing.T) {
	f := &githubfake.Comments{Comments: map[int64]string{}}
	pidFile := filepath.Join(t.TempDir(), "pid")
	svc, _ := liveService(t, f, &child.Command{Argv: []string{"sh", "-c", "echo $$ > " + pidFile + "; exec sleep 60"}})
	ctx := context.Background()
	spec := JobSpec{Key: "github:acme/store#3/comment/9", Targets: []target.Target{target.MustParse("github:acme/store#3")}, Title: "slow", Source: "github"}
	if _, _, err := svc.Enqueue(ctx, spec); err != nil {
		t.Fatal(err)
	}
	waitRun(t, svc.Store(), spec.Key, 30*time.Second, "running", func(r store.Run) bool { return r.Status == store.StatusRunning })
	waitComment(t, f, "perfbot: running")
	var pid int
	for deadline := time.Now().Add(10 * time.Second); pid == 0 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(pidFile); err == nil && strings.HasSuffix(string(b), "\n") {
			pid = atoi(strings.TrimSpace(string(b)))
		}
	}
	if pid == 0 {
		t.Fatal("benchmark command did not start")
	}
	started := time.Now()
	n, err := svc.Cancel(WithActor(ctx, "github:alice"), target.MustParse("github:acme/store#3"))
	if err != nil || n != 1 {
		t.Fatalf("cancel = %d, %v", n, err)
	}
	run := waitRun(t, svc.Store(), spec.Key, 30*time.Second, "cancelled", func(r store.Run) bool { return r.Status == store.StatusFailed })
	if run.Error != "cancelled" || time.Since(started) > 20*time.Second {
		t.Errorf("run = %+v, ended %v after the cancel", run, time.Since(started))
	}
	if err := syscallKill0(pid); err == nil {
		t.Errorf("benchmark process %d still runs after the cancel", pid)
	}
	body := waitComment(t, f, "**perfbot: cancelled**: cancelled by github:alice")
	if strings.Contains(body, "edited in place") {
		t.Errorf("cancelled answer still promises a result: %q", body)
	}
	servicetest.WaitAnswered(t, svc.Store(), spec.Key)
	if n, err := svc.Cancel(ctx, target.MustParse("github:acme/store#3")); err != nil || n != 0 {
		t.Errorf("second cancel = %d, %v; want nothing left to cancel", n, err)
	}
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// syscallKill0 reports whether process pid exists (nil when it does).
func syscallKill0(pid int) error { return syscall.Kill(pid, 0) }
