package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfbot/perfbot/internal/fake/reviewboardfake"
	"github.com/perfbot/perfbot/internal/gitrepo"
	"github.com/perfbot/perfbot/internal/storetest"
	"github.com/perfbot/perfbot/store"
)

// TestServeReviewBoardFalseAlarm runs the service against a fake Review
// Board with a config that only names the site: a reply to perfbot's
// review saying "/perfbot false-alarm" marks the verdict of the run
// answered on that review request, once, and is acknowledged with a
// review; a user who may not start runs is refused; after a restart,
// which reads every review again, nothing is marked or answered twice.
func TestServeReviewBoardFalseAlarm(t *testing.T) {
	r := gitrepo.New(t)
	r.Commit("work", map[string]string{"go.mod": "module example.org/work\n\ngo 1.22\n", "work/work.go": "package work\n"})
	dir := t.TempDir()
	db := filepath.Join(dir, "perfbot.db")
	st, err := store.Open(context.Background(), store.SQLite, db)
	if err != nil {
		t.Fatal(err)
	}
	answered := storetest.AnsweredRun(t, st, "reviewboard", "42", "ci-1")
	st.Close()

	f := reviewboardfake.New(t)
	// r/42's diff was answered (the run above); no new diff is waiting.
	f.AddRequest(reviewboardfake.Request{ID: 42, Summary: "Faster checksums", Submitter: "alice", Repository: "3"})
	answer := f.Publish(42, reviewboardfake.Review{User: "perfbot", BodyTopTextType: "markdown",
		BodyTop: "[//]: # (perfbot:reviewboard:42/diff/1/answered)\n\n**1 worse**: Checksum-2 +30.0%\n\n`/perfbot false-alarm BENCH` marks it"})

	tokenFile := filepath.Join(dir, "rb-token")
	if err := os.WriteFile(tokenFile, []byte(f.Token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	cfgFile := filepath.Join(dir, "config.yaml")
	cfg := fmt.Sprintf(`project: {repo: %q, branch: main}
suites:
  work: {preset: go, instrument: walltime, count: 4, go: {benchtime: 20x, bench: Work}}
sandbox: {mode: none}
service: {listen: %q, heartbeat: 1s, poll_interval: 1s}
store: {driver: sqlite, path: %q}
triggers: {tracker_users: ["reviewboard:alice"]}
venues:
  reviewboard: {url: %q, token_file: %q, repository: "3", poll: true}
`, r.Dir, addr, db, f.URL, tokenFile)
	if err := os.WriteFile(cfgFile, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(mainEnv, "1")
	t.Setenv("XDG_CACHE_HOME", sharedCacheHome(t))
	var serveErr bytes.Buffer
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("serve log:\n%s", serveErr.String())
		}
	})
	serve := func() (stop func()) {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			done <- run(ctx, []string{"serve", "--config", cfgFile}, &bytes.Buffer{}, &syncWriter{w: &serveErr})
		}()
		waitHealthy(t, addr)
		return func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("serve: %v", err)
			}
		}
	}
	stop := serve()
	f.Publish(42, reviewboardfake.Review{User: "mallory", BodyTop: "Not convinced.", BodyBottom: "/perfbot false-alarm Checksum-2"})
	f.Publish(42, reviewboardfake.Review{ReplyTo: answer, User: "alice", BodyTopTextType: "markdown",
		BodyTop: "> `/perfbot false-alarm BENCH` marks it\n\n/perfbot false-alarm Checksum-2 -- the runner was busy"})
	waitFor(t, time.Minute, "the acknowledgement and the refusal", func() bool { return len(f.Reviews(42, "perfbot")) >= 3 })
	// Two more polls read the reviews again.
	n := f.Listings(42)
	waitFor(t, time.Minute, "two more polls", func() bool { return f.Listings(42) >= n+2 })
	stop()
	// A restart lists every request and reads its reviews from the start.
	n = f.Listings(42)
	stop = serve()
	waitFor(t, time.Minute, "two polls after the restart", func() bool { return f.Listings(42) >= n+2 })
	stop()

	mine := f.Reviews(42, "perfbot")
	if len(mine) != 3 {
		t.Fatalf("perfbot's reviews %+v, want its answer, one acknowledgement and one refusal", mine)
	}
	var ack, refusal string
	for _, rv := range mine[1:] {
		if rv.BodyTopTextType != "markdown" || !rv.Public {
			t.Errorf("review %+v", rv)
		}
		switch key := rv.ExtraData["perfbot_key"]; {
		case strings.HasSuffix(key, "/false-alarm") && strings.Contains(rv.BodyTop, "mallory"):
			refusal = rv.BodyTop
		case strings.HasSuffix(key, "/false-alarm"):
			ack = rv.BodyTop
		default:
			t.Errorf("review with key %q:\n%s", key, rv.BodyTop)
		}
	}
	if !strings.Contains(ack, `marked 1 verdict of run 1 a false alarm`) || !strings.Contains(ack, `Checksum\-2 ns/op \(worse, \+30\.0%\) on host ci\-1`) {
		t.Errorf("acknowledgement:\n%s", ack)
	}
	if !strings.Contains(refusal, "tracker\\_users") && !strings.Contains(refusal, "tracker_users") {
		t.Errorf("refusal:\n%s", refusal)
	}
	st, err = store.Open(context.Background(), store.SQLite, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	marks, err := st.FalseAlarmsOfRun(context.Background(), answered.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(marks) != 1 || marks[0].By != "alice" || marks[0].Venue != "reviewboard" || marks[0].Host != "ci-1" ||
		marks[0].Key.Benchmark != "Checksum-2" || marks[0].Reason != "the runner was busy" {
		t.Errorf("marks in the store: %+v", marks)
	}
}
