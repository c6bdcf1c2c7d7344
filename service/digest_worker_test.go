package service

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/internal/fake/githubfake"
	"github.com/perfbot/perfbot/internal/servicetest"
	"github.com/perfbot/perfbot/store"
	"github.com/perfbot/perfbot/target"
	"github.com/perfbot/perfbot/venue/github"
	"github.com/perfbot/perfbot/venue/retry"
)

// deliveryClock is a settable clock for Deps.Now.
type deliveryClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *deliveryClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *deliveryClock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// digestService opens, without running it, a service at dsn whose digests
// say "digest N" (N counting the digests built) and whose answers go
// through poster on the clock c.
func digestService(t *testing.T, dsn string, poster Poster, c *deliveryClock) *Service {
	t.Helper()
	cfg := servicetest.Config("serve", store.SQLite, dsn, false)
	built := 0
	var mu sync.Mutex
	svc, err := Open(context.Background(), cfg, ModeServe, Deps{Poster: poster, Now: c.Now,
		Digest: func(ctx context.Context, job DigestJob) (answer.Answer, error) {
			mu.Lock()
			built++
			n := built
			mu.Unlock()
			text := "perfbot " + job.Period + " digest " + strings.Repeat("I", n)
			return answer.Answer{Subject: text, Summary: text, State: answer.StateSuccess,
				Renderings: map[answer.Format]answer.Rendering{answer.MarkdownGFM: {Full: text}, answer.Text: {Full: text}}}, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	return svc
}

// workDigest runs the digest worker on job, as River would (again).
func workDigest(t *testing.T, svc *Service, job DigestJob) {
	t.Helper()
	if err := (&digestWorker{svc: svc}).Work(context.Background(), &river.Job[DigestJob]{Args: job}); err != nil {
		t.Fatalf("digest job: %v", err)
	}
}

// TestDigestRetriedByOutbox: a digest whose first delivery fails (the
// venue answers 502) is delivered by the outbox's retry, once, and counted
// as one failed post and one digest.
func TestDigestRetriedByOutbox(t *testing.T) {
	f := &githubfake.Comments{Comments: map[int64]string{}, Failures: 1}
	srv := httptest.NewServer(f)
	defer srv.Close()
	gp, err := github.New(github.Config{BaseURL: srv.URL + "/api/v3/", Token: "t0ken", Retry: retry.Policy{Attempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	c := &deliveryClock{t: time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)}
	svc := digestService(t, filepath.Join(t.TempDir(), "perfbot.db"), gp, c)
	ctx := context.Background()
	to := target.MustParse("github:acme/store#3")
	job := DigestJob{Name: "weekly", Period: "weekly", End: c.Now().Truncate(time.Hour), Targets: []target.Target{to}}
	workDigest(t, svc, job)
	if _, err := svc.outbox.DeliverDue(ctx); err != nil {
		t.Fatal(err)
	}
	key := digestKey(job)
	a, err := svc.Store().GetAnswer(ctx, key, to.String())
	if err != nil || a.Status != store.OutboxPending || a.Attempts != 1 || !strings.Contains(a.LastError, "502") {
		t.Fatalf("after the venue's 502: %+v, %v", a, err)
	}
	if bodies, _ := f.Snapshot(); len(bodies) != 0 {
		t.Fatalf("comments after the 502: %q", bodies)
	}
	for range 10 {
		c.Add(time.Minute)
		if _, err := svc.outbox.DeliverDue(ctx); err != nil {
			t.Fatal(err)
		}
	}
	bodies, _ := f.Snapshot()
	if len(bodies) != 1 || !strings.Contains(bodies[0], "perfbot weekly digest I") {
		t.Fatalf("comments %q, want the digest once", bodies)
	}
	if a, err := svc.Store().GetAnswer(ctx, key, to.String()); err != nil || a.Status != store.OutboxDelivered {
		t.Fatalf("digest's outbox row: %+v, %v", a, err)
	}
	if p, err := svc.Store().GetPost(ctx, to.Venue, to.Where(), key); err != nil || p.Count != 1 {
		t.Errorf("post record = %+v, %v", p, err)
	}
	m := svc.Metrics()
	if got := m.Counter("perfbot_digests_total"); got != 1 {
		t.Errorf("perfbot_digests_total = %v, want 1", got)
	}
	if got := m.Counter("perfbot_post_failures_total", "venue", "github"); got != 1 {
		t.Errorf("perfbot_post_failures_total = %v, want 1", got)
	}
	if got := m.Counter("perfbot_posts_total", "venue", "github"); got != 1 {
		t.Errorf("perfbot_posts_total = %v, want 1", got)
	}
}

// TestDigestJobRetriedPostsOnce: a digest job run again (River retrying it
// after a crash, before or after its delivery, or in a new process) does
// not post the digest twice, even though the digest built again differs.
func TestDigestJobRetriedPostsOnce(t *testing.T) {
	poster := &servicetest.RecordingPoster{}
	c := &deliveryClock{t: time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)}
	dsn := filepath.Join(t.TempDir(), "perfbot.db")
	svc := digestService(t, dsn, poster, c)
	ctx := context.Background()
	job := DigestJob{Name: "weekly", Period: "weekly", End: c.Now().Truncate(time.Hour),
		Targets: []target.Target{target.MustParse("mail:dev@example.org"), target.MustParse("github:acme/store#3")}}
	workDigest(t, svc, job) // crashed after the put, before delivery
	workDigest(t, svc, job)
	if _, err := svc.outbox.DeliverDue(ctx); err != nil {
		t.Fatal(err)
	}
	workDigest(t, svc, job) // crashed after delivery, before River recorded the job done
	c.Add(time.Hour)
	if _, err := svc.outbox.DeliverDue(ctx); err != nil {
		t.Fatal(err)
	}
	svc.Close()
	again := digestService(t, dsn, poster, c) // a new process
	workDigest(t, again, job)
	c.Add(time.Hour)
	if _, err := again.outbox.DeliverDue(ctx); err != nil {
		t.Fatal(err)
	}
	posts := poster.List()
	key := digestKey(job)
	want := []string{"mail:dev@example.org " + key + " perfbot weekly digest I", "github:acme/store#3 " + key + " perfbot weekly digest I"}
	if len(posts) != 2 || !(posts[0] == want[0] && posts[1] == want[1] || posts[0] == want[1] && posts[1] == want[0]) {
		t.Fatalf("posts %q, want %q", posts, want)
	}
	if got := svc.Metrics().Counter("perfbot_digests_total"); got != 2 {
		t.Errorf("perfbot_digests_total = %v, want 2 (one per target)", got)
	}
}
