package followup_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/job/jobspec"
	"github.com/perfbot/perfbot/service"
	"github.com/perfbot/perfbot/target"
	"github.com/perfbot/perfbot/venue/retry"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/internal/gitrepo"
	"github.com/perfbot/perfbot/internal/servicetest"
	"github.com/perfbot/perfbot/internal/testwait"
	"github.com/perfbot/perfbot/job"
	"github.com/perfbot/perfbot/provenance"
	"github.com/perfbot/perfbot/store"
	"github.com/perfbot/perfbot/track"
)

// trackedSteps starts a service tracking a real repository's branch, posting
// through poster with delivery clock now (nil: time.Now), and polls the
// branch while twelve commits land: each new head is benchmarked (by a fake
// that reads the commit's level) against the one before, and the seventh,
// slow, doubles the level. It returns the service, the track's name, the
// slow commit, and a function that stops the service.
func trackedSteps(t *testing.T, poster service.Poster, now func() time.Time) (svc *service.Service, name, slow string, stop func()) {
	t.Helper()
	r := gitrepo.New(t)
	var mu sync.Mutex
	levels := map[string]float64{}
	commit := func(i int, level float64) string {
		c := r.Commit(fmt.Sprintf("commit %d", i), map[string]string{"n": fmt.Sprint(i)})
		mu.Lock()
		levels[c] = level
		mu.Unlock()
		return c
	}
	first := commit(0, 100)
	cfg := servicetest.Config("serve", store.SQLite, filepath.Join(t.TempDir(), "perfbot.db"), true)
	cfg.Track.Branches = []config.TrackedBranch{{Repo: r.Dir, Branch: "main", From: first, Post: []string{"mail:dev@example.org"}}}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	bench := service.BenchmarkerFunc(func(ctx context.Context, job jobspec.Spec, _ job.ProgressFunc) (*compare.Comparison, error) {
		base := r.Git("rev-parse", job.BaseRef)
		mu.Lock()
		b, c := levels[base], levels[job.CandidateRef]
		mu.Unlock()
		if job.Repo != r.Dir || job.Track == "" {
			return nil, fmt.Errorf("job %+v: want the tracked repository and track", job)
		}
		return levelComparison(base, job.CandidateRef, b, c), nil
	})
	ctx, cancel := context.WithCancel(context.Background())
	svc, err := service.Open(ctx, cfg, service.ModeServe, service.Deps{Poster: poster, Benchmarker: bench, Now: now})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- svc.Run(ctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Error(err)
			}
			svc.Close()
		})
	}
	t.Cleanup(stop)
	name = track.Name(r.Dir, "main")
	for i := 1; i <= 12; i++ {
		level := 100.0 + float64(i%3)
		if i >= 7 {
			level *= 2
		}
		c := commit(i, level)
		if i == 7 {
			slow = c
		}
		if err := svc.Tracker().PollTracked(ctx); err != nil {
			t.Fatal(err)
		}
		if err := svc.Tracker().PollTracked(ctx); err != nil { // the same head again: queued once
			t.Fatal(err)
		}
		testwait.Until(t, 30*time.Second, fmt.Sprintf("commit %d to be measured", i), func() bool {
			have, err := svc.Store().TrackedCommits(ctx, name)
			if err != nil {
				t.Fatal(err)
			}
			return have[c]
		})
	}
	return svc, name, slow, stop
}

// TestTrackedBranch polls a real repository's tracked branch while commits
// land: each new head is benchmarked (by a fake that reads the commit's
// level) against the one before, and the step the seventh commit makes is
// announced once, to the branch's post target.
func TestTrackedBranch(t *testing.T) {
	poster := &servicetest.RecordingPoster{}
	svc, name, slow, stop := trackedSteps(t, poster, nil)
	ctx := context.Background()
	time.Sleep(200 * time.Millisecond)
	cps, err := svc.Store().ChangePoints(ctx, store.ChangePointFilter{Track: name})
	if err != nil {
		t.Fatal(err)
	}
	if len(cps) != 1 || cps[0].Commit != slow || cps[0].NBefore != 7 || cps[0].NAfter != 6 || cps[0].Posted.IsZero() {
		t.Fatalf("change points %+v, want one at %s, posted", cps, slow)
	}
	posts := poster.List()
	if len(posts) != 1 || !strings.HasPrefix(posts[0], "mail:dev@example.org changepoint-") || !strings.Contains(posts[0], "+") {
		t.Errorf("posts %q, want one announcement to the list", posts)
	}
	var jobs int
	if err := svc.Store().DB().QueryRow(`SELECT COUNT(*) FROM river_job WHERE kind = 'perfbot_benchmark'`).Scan(&jobs); err != nil || jobs != 12 {
		t.Errorf("%d jobs, %v; want 12", jobs, err)
	}

	// A push webhook to the tracked branch queues its new head; other
	// branches and repositories are not tracked.
	for _, tc := range []struct {
		repo, ref string
		tracked   bool
	}{
		{"acme/other", "refs/heads/main", false},
		{"", "refs/heads/dev", false},
		{"", "refs/tags/v1", false},
	} {
		got, err := svc.Tracker().TrackPush(ctx, tc.repo, tc.ref, "", strings.Repeat("ab", 20))
		if err != nil || got != tc.tracked {
			t.Errorf("TrackPush(%q, %q) = %v, %v; want %v", tc.repo, tc.ref, got, err, tc.tracked)
		}
	}
	if got, err := svc.Tracker().TrackPush(ctx, "", "refs/heads/main", "", "--upload-pack=touch /tmp/x"); got || err != nil {
		t.Errorf("a push whose head is not a commit id: %v, %v", got, err)
	}
	stop()
}

func levelComparison(base, cand string, b, c float64) *compare.Comparison {
	return &compare.Comparison{
		Base: "base", Candidates: []string{cand},
		Rows: []compare.Row{{Benchmark: "BenchmarkX", Params: bench.Params{}, Unit: "ns/op",
			Base: &compare.Cell{Center: b, N: 1, Samples: []float64{b}},
			Candidates: []compare.Candidate{{Variant: cand, Presence: compare.Both,
				Cell: compare.Cell{Center: c, N: 1, Samples: []float64{c}}}}}},
		Provenance: provenance.Record{Sides: []provenance.Side{{Variant: "base", Commit: base}, {Variant: cand, Ref: cand, Commit: cand}}},
	}
}

// failingOnce fails its first post of each key whose prefix is failKey
// as a venue answering 502 would, then posts through p.
type failingOnce struct {
	p       *servicetest.RecordingPoster
	failKey string
	mu      sync.Mutex
	failed  map[string]bool
}

func (f *failingOnce) Post(ctx context.Context, to target.Target, msg answer.Answer) (string, error) {
	f.mu.Lock()
	fail := strings.HasPrefix(msg.Key, f.failKey) && !f.failed[msg.Key]
	if fail {
		f.failed[msg.Key] = true
	}
	f.mu.Unlock()
	if fail {
		return "", retry.Transient(errors.New("502 Bad Gateway"))
	}
	return f.p.Post(ctx, to, msg)
}

// TestChangePointAnnouncementRetried: a change point's announcement whose
// first delivery fails (the venue answers 502) is marked posted once it is
// in the outbox, and the outbox's retry delivers it, once.
func TestChangePointAnnouncementRetried(t *testing.T) {
	rec := &servicetest.RecordingPoster{}
	poster := &failingOnce{p: rec, failKey: "changepoint-", failed: map[string]bool{}}
	var mu sync.Mutex
	clock := time.Now()
	now := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return clock
	}
	svc, name, slow, stop := trackedSteps(t, poster, now)
	defer stop()
	ctx := context.Background()
	var cps []store.ChangePoint
	testwait.Until(t, 30*time.Second, "the change point's first delivery to fail", func() bool {
		var err error
		if cps, err = svc.Store().ChangePoints(ctx, store.ChangePointFilter{Track: name}); err != nil {
			t.Fatal(err)
		}
		if len(cps) != 1 {
			return false
		}
		a, err := svc.Store().GetAnswer(ctx, track.Message(cps[0]).Key, "mail:dev@example.org")
		return err == nil && a.Attempts == 1 && a.Status == store.OutboxPending
	})
	if cps[0].Commit != slow || cps[0].Posted.IsZero() {
		t.Fatalf("change points %+v, want one at %s, marked posted once in the outbox", cps, slow)
	}
	if posts := rec.List(); len(posts) != 0 {
		t.Fatalf("posts %q before the retry", posts)
	}
	mu.Lock()
	clock = clock.Add(2 * time.Minute) // past the first backoff
	mu.Unlock()
	testwait.Until(t, 30*time.Second, "the announcement to be delivered", func() bool { return len(rec.List()) > 0 })
	time.Sleep(200 * time.Millisecond)
	posts := rec.List()
	if len(posts) != 1 || !strings.HasPrefix(posts[0], "mail:dev@example.org changepoint-") {
		t.Errorf("posts %q, want one announcement to the list", posts)
	}
	if got := svc.Metrics().Counter("perfbot_post_failures_total", "venue", "mail"); got != 1 {
		t.Errorf("perfbot_post_failures_total{venue=mail} = %v, want 1", got)
	}
}
