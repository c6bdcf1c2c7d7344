package service

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/internal/servicetest"
	"github.com/perfbot/perfbot/job/child"
	"github.com/perfbot/perfbot/store"
	"github.com/perfbot/perfbot/target"
)

// TestScheduleFires runs serve with a digest and a nightly schedule whose
// last firing is past due: both fire at once, each exactly once, and the
// digest's release candidate is queued against the release. The schedules
// are hourly at the minute two minutes ago, so that no other firing falls
// due while the test runs, whatever minute it starts in.
func TestScheduleFires(t *testing.T) {
	cfg := servicetest.Config("serve", store.SQLite, filepath.Join(t.TempDir(), "perfbot.db"), false)
	due := time.Now().UTC().Add(-2 * time.Minute).Truncate(time.Minute)
	hourly := fmt.Sprintf("%d * * * *", due.Minute())
	cfg.Schedules = []config.Schedule{
		{Name: "weekly", Cron: hourly, Digest: "weekly", Post: []string{"mail"}},
		{Name: "nightly", Cron: hourly, Run: []string{"wal"}, On: "main", Post: []string{"mail:dev@example.org"}},
	}
	cfg.Suites = config.Suites{{Name: "wal", Command: "true"}} // the suite the nightly schedule runs
	cfg.Digest.To = []string{"dev@example.org"}
	cfg.Digest.RC, cfg.Digest.Release = "v2.6.0-rc1", "v2.5.0"
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	poster := &servicetest.RecordingPoster{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var digests []DigestJob
	var mu sync.Mutex
	svc, err := Open(ctx, cfg, ModeServe, Deps{Poster: poster, Digest: func(ctx context.Context, job DigestJob) (answer.Answer, error) {
		mu.Lock()
		digests = append(digests, job)
		mu.Unlock()
		return answer.Answer{Subject: "perfbot " + job.Period}, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	past := time.Now().Add(-5 * time.Minute)
	for _, name := range []string{"weekly", "nightly"} {
		if err := svc.Store().SetScheduleLast(ctx, name, past); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan error, 1)
	go func() { done <- svc.Run(ctx) }()
	deadline := time.Now().Add(15 * time.Second)
	for len(poster.List()) == 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	posts := poster.List()
	if len(posts) != 1 || !strings.HasPrefix(posts[0], "mail:dev@example.org digest:weekly@") || !strings.HasSuffix(posts[0], "perfbot weekly") {
		t.Fatalf("posts = %q, want one weekly digest to the list", posts)
	}
	mu.Lock()
	if len(digests) != 1 || !digests[0].End.Equal(due) {
		t.Errorf("digest jobs = %+v", digests)
	}
	mu.Unlock()
	if n := svc.Metrics().Counter("perfbot_schedule_fired_total", "schedule", "nightly"); n != 1 {
		t.Errorf("nightly fired %v times, want 1", n)
	}
	var queued int
	if err := svc.Store().DB().QueryRow(`SELECT COUNT(*) FROM river_job WHERE kind = 'perfbot_benchmark'`).Scan(&queued); err != nil || queued != 2 {
		t.Errorf("benchmark jobs queued = %d, %v; want 2 (nightly, release candidate)", queued, err)
	}

	// /healthz and /metrics while running.
	rec := httptest.NewRecorder()
	svc.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/healthz", nil))
	if rec.Code != http.StatusOK || rec.Body.String() != "ok\n" {
		t.Errorf("/healthz = %d %q", rec.Code, rec.Body.String())
	}
	resp, err := http.Get("http://" + svc.Addr() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{
		"# TYPE perfbot_queue_jobs gauge",
		`perfbot_queue_jobs{queue="benchmark",state="available"} 2`,
		`perfbot_digests_total 1`,
		`perfbot_requests_total{result="queued",source="schedule"} 2`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics lacks %q:\n%s", want, body)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run: %v", err)
	}
}

// TestStopCancelsLongJob: stopping a process in the middle of a long job
// cancels the job after a grace period instead of waiting for it.
func TestStopCancelsLongJob(t *testing.T) {
	cfg := servicetest.Config("serve", store.SQLite, filepath.Join(t.TempDir(), "perfbot.db"), true)
	cfg.Service.StopGrace = time.Second
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	svc, err := Open(ctx, cfg, ModeServe, Deps{Poster: &servicetest.RecordingPoster{},
		Benchmarker: &child.Command{Argv: []string{"sleep", "600"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	done := make(chan error, 1)
	go func() { done <- svc.Run(ctx) }()
	if _, _, err := svc.Enqueue(ctx, JobSpec{Key: "long", Targets: []target.Target{target.MustParse("mail:dev@example.org")}}); err != nil {
		t.Fatal(err)
	}
	waitRun(t, svc.Store(), "long", 10*time.Second, "running", func(r store.Run) bool { return r.Status == store.StatusRunning })
	start := time.Now()
	cancel()
	select {
	case <-done:
	case <-time.After(40 * time.Second):
		t.Fatal("Run did not return")
	}
	if took := time.Since(start); took < time.Second || took > 30*time.Second {
		t.Errorf("stopping took %v", took)
	}
	var state string
	svc.Store().DB().QueryRow(`SELECT state FROM river_job WHERE kind = 'perfbot_benchmark'`).Scan(&state)
	if state != "retryable" && state != "available" {
		t.Errorf("job state after stop = %q, want it queued for a retry", state)
	}
}
