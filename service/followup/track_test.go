package followup_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perfbot/perfbot/job/jobspec"
	"github.com/perfbot/perfbot/service"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/internal/gitrepo"
	"github.com/perfbot/perfbot/internal/testwait"
	"github.com/perfbot/perfbot/job"
	"github.com/perfbot/perfbot/provenance"
	"github.com/perfbot/perfbot/store"
	"github.com/perfbot/perfbot/track"
)

// TestTrackedBranch polls a real repository's tracked branch while commits
// land: each new head is benchmarked (by a fake that reads the commit's
// level) against the one before, and the step the seventh commit makes is
// announced once, to the branch's post target.
func TestTrackedBranch(t *testing.T) {
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
	cfg := testConfig("serve", store.SQLite, filepath.Join(t.TempDir(), "perfbot.db"), true)
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
	poster := &recordingPoster{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	svc, err := service.Open(ctx, cfg, service.ModeServe, service.Deps{Poster: poster, Benchmarker: bench})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	done := make(chan error, 1)
	go func() { done <- svc.Run(ctx) }()
	name := track.Name(r.Dir, "main")
	var slow string
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
	time.Sleep(200 * time.Millisecond)
	cps, err := svc.Store().ChangePoints(ctx, store.ChangePointFilter{Track: name})
	if err != nil {
		t.Fatal(err)
	}
	if len(cps) != 1 || cps[0].Commit != slow || cps[0].NBefore != 7 || cps[0].NAfter != 6 || cps[0].Posted.IsZero() {
		t.Fatalf("change points %+v, want one at %s, posted", cps, slow)
	}
	posts := poster.list()
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
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
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
