package service

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfbot/perfbot/internal/pgtest"
	"github.com/perfbot/perfbot/internal/servicetest"
	"github.com/perfbot/perfbot/store"
	"github.com/perfbot/perfbot/target"
)

// checkFinished checks the outcome of a job that survived a crash: one
// run, finished on the survivor after two attempts, with every result
// stored, and one answer posted.
func checkFinished(t *testing.T, st *store.Store, key, posts, survivor string) {
	t.Helper()
	ctx := context.Background()
	run := waitRun(t, st, key, 30*time.Second, "done", func(r store.Run) bool { return r.Status == store.StatusDone })
	if run.Worker != survivor || run.Attempt != 2 {
		t.Errorf("run finished by %s on attempt %d, want %s on attempt 2", run.Worker, run.Attempt, survivor)
	}
	if run.CandidateCommit != strings.Repeat("b", 40) {
		t.Errorf("candidate commit = %q", run.CandidateCommit)
	}
	res, err := st.Results(ctx, run.ID)
	if err != nil || len(res) != 2 {
		t.Errorf("results = %d, %v; want 2 (base and patch)", len(res), err)
	}
	servicetest.WaitAnswered(t, st, key)
	// Give a duplicate post, if there were one, time to appear.
	time.Sleep(300 * time.Millisecond)
	// One answer, edited in place: every post carries the job's key (the
	// venue edits the comment with that key's marker), the live states
	// come first and the result once, last, from the survivor.
	lines := readPosts(t, posts)
	final := 0
	for i, l := range lines {
		f := strings.Split(l, "\t")
		if len(f) != 4 || f[0] != key || f[1] != "github:acme/store#1" {
			t.Errorf("post %q is not an edit of the answer of %s", l, key)
			continue
		}
		switch f[3] {
		case "queued", "pending":
			if final > 0 {
				t.Errorf("live answer %q posted after the result", l)
			}
		case "success":
			final++
			if f[2] != survivor || i != len(lines)-1 {
				t.Errorf("result %q: want it last, by %s", l, survivor)
			}
		default:
			t.Errorf("post %q: unexpected state", l)
		}
	}
	if final != 1 {
		t.Errorf("posts = %q, want the result of %s once", lines, key)
	}
	p, err := st.GetPost(ctx, "github", "acme/store#1", key)
	if err != nil || p.Count != len(lines) || p.Link == "" || p.State != "success" {
		t.Errorf("post record = %+v, %v; want %d posts ending in success", p, err, len(lines))
	}
}

func TestWorkerKilledMidJobPostgres(t *testing.T) {
	srv := pgtest.Start(t)
	dsn := srv.NewDB(t)
	dir := t.TempDir()
	ctx := context.Background()
	intake, err := Open(ctx, servicetest.Config("intake", store.Postgres, dsn, false), ModeServe, Deps{})
	if err != nil {
		t.Fatal(err)
	}
	defer intake.Close()
	cmpFile := writeComparison(t, dir)
	posts := filepath.Join(dir, "posts.txt")
	procs := map[string]*proc{}
	for _, name := range []string{"host-a", "host-b"} {
		procs[name] = startProcess(t, testProcess{Mode: ModeWorker, Name: name, Driver: store.Postgres, DSN: dsn,
			Posts: posts, Comparison: cmpFile, Sleep: 3 * time.Second})
	}
	job := JobSpec{Key: "github:acme/store#1/comment/1001", Targets: []target.Target{target.MustParse("github:acme/store#1")},
		CandidateRef: "pull/1/head", Source: "github"}
	for i, wantDup := range []bool{false, true} {
		_, dup, err := intake.Enqueue(ctx, job)
		if err != nil || dup != wantDup {
			t.Fatalf("enqueue %d: duplicate = %v, %v; want %v", i, dup, err, wantDup)
		}
	}
	run := waitRun(t, intake.Store(), job.Key, 30*time.Second, "running", func(r store.Run) bool { return r.Status == store.StatusRunning })
	// Queue depth on PostgreSQL, as /metrics shows it.
	rec := httptest.NewRecorder()
	intake.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if want := `perfbot_queue_jobs{queue="benchmark",state="running"} 1`; !strings.Contains(rec.Body.String(), want) {
		t.Errorf("/metrics lacks %s:\n%s", want, rec.Body.String())
	}
	time.Sleep(500 * time.Millisecond) // in the middle of the benchmark
	victim := procs[run.Worker]
	if victim == nil {
		t.Fatalf("run taken by unknown worker %q", run.Worker)
	}
	victim.kill(t)
	survivor := "host-a"
	if run.Worker == "host-a" {
		survivor = "host-b"
	}
	checkFinished(t, intake.Store(), job.Key, posts, survivor)
}

func TestServeKilledAndRestartedSQLite(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "perfbot.db")
	ctx := context.Background()
	intake, err := Open(ctx, servicetest.Config("intake", store.SQLite, db, false), ModeServe, Deps{})
	if err != nil {
		t.Fatal(err)
	}
	defer intake.Close()
	cmpFile := writeComparison(t, dir)
	posts := filepath.Join(dir, "posts.txt")
	p := testProcess{Mode: ModeServe, Name: "serve", Driver: store.SQLite, DSN: db, Posts: posts,
		Comparison: cmpFile, Sleep: 2 * time.Second, Embedded: true}
	first := startProcess(t, p)
	job := JobSpec{Key: "github:acme/store#1/comment/2002", Targets: []target.Target{target.MustParse("github:acme/store#1")},
		CandidateRef: "pull/1/head", Source: "github"}
	if _, _, err := intake.Enqueue(ctx, job); err != nil {
		t.Fatal(err)
	}
	waitRun(t, intake.Store(), job.Key, 30*time.Second, "running", func(r store.Run) bool { return r.Status == store.StatusRunning })
	time.Sleep(500 * time.Millisecond)
	first.kill(t)
	p.Name = "serve-restarted"
	startProcess(t, p)
	checkFinished(t, intake.Store(), job.Key, posts, "serve-restarted")
}
