package bot

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/perfbot/perfbot/store"
)

// TestCancelAndStatus: Status lists a target's running and queued jobs
// with their place in the queue; Cancel cancels both, leaves other
// targets' jobs alone, and the running job's context ends.
func TestCancelAndStatus(t *testing.T) {
	cfg := testConfig("serve", store.SQLite, filepath.Join(t.TempDir(), "perfbot.db"), true)
	cfg.Service.Workers = 1
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	svc, err := Open(ctx, cfg, ModeServe, Deps{Poster: &recordingPoster{},
		Benchmarker: &ExecBenchmarker{Argv: []string{"sleep", "600"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	done := make(chan error, 1)
	go func() { done <- svc.Run(ctx) }()
	defer func() { cancel(); <-done }()
	pr := "github:acme/store#12"
	for _, j := range []JobSpec{
		{Key: "first", Targets: []string{pr}, Suites: []string{"wal"}},
		{Key: "other", Targets: []string{"github:acme/store#13"}},
		{Key: "second", Targets: []string{pr}},
	} {
		if _, _, err := svc.Enqueue(ctx, j); err != nil {
			t.Fatal(err)
		}
	}
	waitRun(t, svc.Store(), "first", 20*time.Second, "running", func(r store.Run) bool { return r.Status == store.StatusRunning })
	status, err := svc.Status(ctx, pr)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`\(wal\): running, attempt 1, for [0-9]+s on serve\n`).MatchString(status) || !strings.Contains(status, "(all suites): queued, 2 of 2 waiting") {
		t.Errorf("status:\n%s", status)
	}
	n, err := svc.Cancel(ctx, pr)
	if err != nil || n != 2 {
		t.Fatalf("cancelled %d, %v; want 2", n, err)
	}
	states := map[string]string{}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		rows, err := svc.Store().DB().QueryContext(ctx, `SELECT json_extract(json(args), '$.key'), state FROM river_job WHERE kind = 'perfbot_benchmark'`)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var k, s string
			rows.Scan(&k, &s)
			states[k] = s
		}
		rows.Close()
		if states["first"] == "cancelled" && states["second"] == "cancelled" {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if states["first"] != "cancelled" || states["second"] != "cancelled" || states["other"] == "cancelled" {
		t.Errorf("job states %v: want first and second cancelled, other not", states)
	}
	if s, err := svc.Status(ctx, pr); err != nil || !strings.HasPrefix(s, "no benchmark of "+pr) {
		t.Errorf("status after cancel: %q, %v", s, err)
	}
}
