package service

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/internal/fake/githubfake"
	"github.com/perfbot/perfbot/internal/gitrepo"
	"github.com/perfbot/perfbot/internal/servicetest"
	"github.com/perfbot/perfbot/job"
	"github.com/perfbot/perfbot/job/jobspec"
	"github.com/perfbot/perfbot/provenance"
	"github.com/perfbot/perfbot/store"
	"github.com/perfbot/perfbot/target"
	"github.com/perfbot/perfbot/venue/github"
	"github.com/perfbot/perfbot/venue/retry"
)

// bisectService serves a repository whose command suite prints the number
// in the file "level" (levels[0] is the base, the rest a series of
// commits), with service.bisect set, answering to the fake GitHub f, and
// measuring for real through job.Run. It returns the service and the
// commits.
func bisectService(t *testing.T, f *githubfake.Comments, levels []int, bench Benchmarker) (*Service, *gitrepo.Repo, []string) {
	t.Helper()
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // the workspaces' cache
	r := gitrepo.New(t)
	var commits []string
	for i, l := range levels {
		commits = append(commits, r.Commit(fmt.Sprintf("level %d", i), map[string]string{"level": fmt.Sprintf("%d\n", l), "commit": fmt.Sprintf("%d\n", i)}))
	}
	yaml := `project: {repo: ` + r.Dir + `, branch: main}
suites:
  level:
    command: 'echo "BenchmarkLevel 1 $(( $(cat level) + ({round} * 37 % 13) * $(cat level) / 200 )) ns/op"'
    parser: gobench
    count: 6
service:
  bisect: {min_change: 10%}
sandbox: {mode: none}
`
	file := filepath.Join(t.TempDir(), "perfbot.yaml")
	if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	base := servicetest.Config("serve", store.SQLite, filepath.Join(t.TempDir(), "perfbot.db"), true)
	bisectCfg := cfg.Service.Bisect
	cfg.Service, cfg.Store = base.Service, base.Store
	cfg.Service.Bisect = bisectCfg
	cfg.Service.JobTimeout = 5 * time.Minute
	cfg.Service.MaxAttempts = 1

	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	gp, err := github.New(github.Config{BaseURL: srv.URL + "/api/v3/", Token: "t0ken", Retry: retry.Policy{Attempts: 2, Base: time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	if bench == nil {
		bench = BenchmarkerFunc(func(ctx context.Context, spec jobspec.Spec, progress job.ProgressFunc) (*compare.Comparison, error) {
			out, err := job.Run(ctx, spec, job.Options{Config: cfg, NoSandbox: true, Progress: progress})
			if err != nil {
				return nil, err
			}
			return out.Comparison, nil
		})
	}
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
	return svc, r, commits
}

// TestBisectFollowUp: a pull request of five commits of which the third
// makes the benchmark three times slower is answered with the comparison,
// then the same comment gains a section naming the third commit. The base
// branch moved on after the series left it, so the series is bisected from
// where it starts.
func TestBisectFollowUp(t *testing.T) {
	f := &githubfake.Comments{Comments: map[int64]string{}}
	svc, r, commits := bisectService(t, f, []int{1000, 1000, 1000, 3000, 3000, 3000}, nil)
	r.Git("branch", "pr")
	r.Git("reset", "-q", "--hard", commits[0])
	r.Commit("main moves on", map[string]string{"NOTES": "later\n"})
	spec := JobSpec{Key: "github:acme/store#3/comment/1", Targets: []target.Target{target.MustParse("github:acme/store#3")}, Title: "series",
		BaseRef: "main", CandidateRef: "pr", Source: "github"}
	if _, _, err := svc.Enqueue(context.Background(), spec); err != nil {
		t.Fatal(err)
	}
	waitWithin := 3 * time.Minute
	deadline := time.Now().Add(waitWithin)
	var body string
	for time.Now().Before(deadline) {
		if runs, _ := svc.Store().RunsByKey(context.Background(), spec.Key); len(runs) > 0 && runs[0].Status == store.StatusFailed {
			t.Fatalf("the series' run failed: %s", runs[0].Error)
		}
		bodies, _ := f.Snapshot()
		if len(bodies) > 1 {
			t.Fatalf("%d comments, want one answer edited in place: %q", len(bodies), bodies)
		}
		if len(bodies) == 1 && strings.Contains(bodies[0], "#### Which commit") {
			body = bodies[0]
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if body == "" {
		bodies, _ := f.Snapshot()
		t.Fatalf("no bisect section within %v; comments: %q", waitWithin, bodies)
	}
	t.Logf("answer:\n%s", body)
	waitComment(t, f, "1/5, 2/5, 4/5, 5/5 unchanged")
	body = waitComment(t, f, "WORSE")
	if strings.Contains(body, "being measured") {
		t.Errorf("the answer still says the bisect is pending:\n%s", body)
	}
	if !strings.Contains(body, "comes from 3/5 `level 3`") || !strings.Contains(body, "1/5, 2/5, 4/5, 5/5 unchanged") ||
		!strings.HasPrefix(body, github.Marker(spec.Key)) {
		t.Errorf("answer with its bisect:\n%s", body)
	}
}

// TestBisectNotQueued: no bisect follows a change below min_change, a
// patch (which has no commits to bisect), or a config without
// service.bisect.
func TestBisectNotQueued(t *testing.T) {
	cfg := servicetest.Config("serve", store.SQLite, filepath.Join(t.TempDir(), "perfbot.db"), true)
	moved := &compare.Comparison{Base: "base", Candidates: []string{"main"}, Rows: []compare.Row{{Benchmark: "Level", Unit: "ns/op",
		Base: &compare.Cell{Center: 100}, Candidates: []compare.Candidate{{Variant: "main", Cell: compare.Cell{Center: 120},
			DeltaPct: 20, Ratio: 1.2, P: 0.002, Significant: true, Verdict: compare.Worse}}}}}
	svc, err := Open(context.Background(), cfg, ModeServe, Deps{Benchmarker: BenchmarkerFunc(func(context.Context, jobspec.Spec, job.ProgressFunc) (*compare.Comparison, error) {
		return moved, nil
	}), Poster: PosterFunc(func(context.Context, target.Target, answer.Answer) (string, error) { return "", nil })})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	ctx := context.Background()
	pr := JobSpec{Key: "k", Targets: []target.Target{target.MustParse("github:acme/store#3")}, BaseRef: "a", CandidateRef: "b", Source: "github"}
	mailOnly := pr
	mailOnly.Key, mailOnly.Targets = "m", []target.Target{target.MustParse("mail:dev@example.org")}
	for _, tc := range []struct {
		name string
		min  float64
		spec JobSpec
		want int
	}{
		{"no service.bisect", 0, pr, 0},
		{"below min_change", 25, pr, 0},
		{"a patch", 10, JobSpec{Key: "p", Patch: "diff", Source: "mail"}, 0},
		{"only a venue that cannot edit its answer", 10, mailOnly, 0},
		{"a pull request", 10, pr, 1},
		{"the same run again", 10, pr, 1},
	} {
		cfg.Service.Bisect = nil
		if tc.min > 0 {
			cfg.Service.Bisect = &config.Bisect{MinChange: config.Percent(tc.min)}
		}
		svc.queueBisect(ctx, svc.log, tc.spec, moved, 1, "aaaa", "bbbb")
		var n int
		if err := svc.st.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM river_job WHERE kind = 'perfbot_bisect'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != tc.want {
			t.Errorf("%s: %d bisect jobs queued, want %d", tc.name, n, tc.want)
		}
	}
}

// TestBisectFails: a bisect that cannot be done (its comparisons fail)
// leaves the answer saying so, not promising a result.
func TestBisectFails(t *testing.T) {
	f := &githubfake.Comments{Comments: map[int64]string{}}
	moved := &compare.Comparison{Base: "base", Candidates: []string{"pr"}, Rows: []compare.Row{{Benchmark: "Level", Unit: "ns/op",
		Base: &compare.Cell{Center: 100}, Candidates: []compare.Candidate{{Variant: "pr", Cell: compare.Cell{Center: 300},
			DeltaPct: 200, Ratio: 3, P: 0.002, Significant: true, Verdict: compare.Worse}}}}}
	var head atomic.Value // the series' head commit, set once the repository exists
	svc, r, commits := bisectService(t, f, []int{1000, 1000, 3000, 3000}, BenchmarkerFunc(func(_ context.Context, spec jobspec.Spec, _ job.ProgressFunc) (*compare.Comparison, error) {
		if spec.Source == "bisect" {
			return nil, fmt.Errorf("the build of %.12s ran out of disk", spec.CandidateRef)
		}
		out := *moved
		out.Provenance.Sides = []provenance.Side{{Variant: "base", Commit: spec.BaseRef}, {Variant: "pr", Commit: head.Load().(string)}}
		return &out, nil
	}))
	head.Store(r.Git("rev-parse", "main"))
	spec := JobSpec{Key: "github:acme/store#3/comment/2", Targets: []target.Target{target.MustParse("github:acme/store#3")}, Title: "series",
		BaseRef: commits[0], CandidateRef: "main", Source: "github"}
	if _, _, err := svc.Enqueue(context.Background(), spec); err != nil {
		t.Fatal(err)
	}
	body := waitComment(t, f, "could not be bisected")
	if !strings.Contains(body, "ran out of disk") || strings.Contains(body, "being measured") {
		t.Errorf("answer:\n%s", body)
	}
}
