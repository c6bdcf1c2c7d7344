package service

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/bisect"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/internal/fake/githubfake"
	"github.com/perfbot/perfbot/internal/gitrepo"
	"github.com/perfbot/perfbot/internal/servicetest"
	"github.com/perfbot/perfbot/job"
	"github.com/perfbot/perfbot/job/jobspec"
	"github.com/perfbot/perfbot/store"
	"github.com/perfbot/perfbot/target"
	"github.com/perfbot/perfbot/venue/github"
	"github.com/perfbot/perfbot/venue/retry"
)

// confirmServices runs two processes on one SQLite store, each with its
// own River client: "first-host" serves and works the benchmark queue,
// "second-host" is a worker on service.confirm's queue. Both measure for
// real through job.Run a repository whose main has level 1000 and whose
// branch pr has level 10000. With onlyFirst, the level is read only while
// a marker file exists, which it does only during the first host's runs:
// elsewhere every tree measures 1000.
func confirmServices(t *testing.T, f *githubfake.Comments, onlyFirst bool) *Service {
	t.Helper()
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	marker := filepath.Join(t.TempDir(), "first-host")
	r := gitrepo.New(t)
	r.Commit("base", map[string]string{"level": "1000\n"})
	r.Git("checkout", "-q", "-b", "pr")
	r.Commit("slower", map[string]string{"level": "10000\n"})
	r.Git("checkout", "-q", "main")
	level := `$(cat level)`
	if onlyFirst {
		level = `$( [ -e ` + marker + ` ] && cat level || echo 1000 )`
	}
	yaml := `project: {repo: ` + r.Dir + `, branch: main}
suites:
  level:
    command: 'L=` + level + `; echo "BenchmarkLevel 1 $(( L + ({round} * 37 % 13) * L / 200 )) ns/op"'
    parser: gobench
    count: 6
service:
  confirm: {queue: confirm, min_change: 5%}
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
	if cfg.Service.Confirm == nil || cfg.Service.Confirm.Queue != "confirm" || cfg.Service.Confirm.MinChange != 5 {
		t.Fatalf("service.confirm read as %+v", cfg.Service.Confirm)
	}
	db := filepath.Join(t.TempDir(), "perfbot.db")
	base := servicetest.Config("first-host", store.SQLite, db, true)
	confirm := cfg.Service.Confirm
	cfg.Service, cfg.Store = base.Service, base.Store
	cfg.Service.Confirm = confirm
	cfg.Service.JobTimeout = 5 * time.Minute
	cfg.Service.MaxAttempts = 1
	second := *cfg
	second.Service.Name, second.Service.Queue = "second-host", confirm.Queue

	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	gp, err := github.New(github.Config{BaseURL: srv.URL + "/api/v3/", Token: "t0ken", Retry: retry.Policy{Attempts: 2, Base: time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	poster := PosterFunc(func(ctx context.Context, to target.Target, msg answer.Answer) (string, error) {
		return gp.Post(ctx, to, msg)
	})
	run := func(cfg *config.Config, mark bool) Benchmarker {
		return BenchmarkerFunc(func(ctx context.Context, spec jobspec.Spec, progress job.ProgressFunc) (*compare.Comparison, error) {
			if mark {
				if err := os.WriteFile(marker, nil, 0o644); err != nil {
					return nil, err
				}
				defer os.Remove(marker)
			}
			out, err := job.Run(ctx, spec, job.Options{Config: cfg, NoSandbox: true, Progress: progress})
			if err != nil {
				return nil, err
			}
			return out.Comparison, nil
		})
	}
	start := func(cfg *config.Config, mode Mode, mark bool) *Service {
		svc, err := Open(context.Background(), cfg, mode, Deps{Benchmarker: run(cfg, mark), Poster: poster})
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
		return svc
	}
	first := start(cfg, ModeServe, true)
	start(&second, ModeWorker, false)
	return first
}

// TestConfirmAgrees: a patch ten times slower is measured worse on the
// first host, confirmed on the second, and answered once, with the table
// and the confirmation.
func TestConfirmAgrees(t *testing.T) {
	f := &githubfake.Comments{Comments: map[int64]string{}}
	svc := confirmServices(t, f, false)
	spec := JobSpec{Key: "github:acme/store#3/comment/1", Targets: []target.Target{target.MustParse("github:acme/store#3")}, Title: "slower",
		BaseRef: "main", CandidateRef: "pr", Source: "github"}
	if _, _, err := svc.Enqueue(context.Background(), spec); err != nil {
		t.Fatal(err)
	}
	body := waitComment(t, f, "Confirmed on a second host")
	t.Logf("answer:\n%s", body)
	if !strings.Contains(body, "WORSE: Level") || !strings.Contains(body, "second-host") || !strings.Contains(body, "Level +900%") || strings.Contains(body, "not confirmed") || !strings.HasPrefix(body, github.Marker(spec.Key)) {
		t.Errorf("confirmed answer:\n%s", body)
	}
}

// TestConfirmDisagrees: a benchmark slower only on the first host is not
// called worse: the answer says the second host did not confirm it.
func TestConfirmDisagrees(t *testing.T) {
	f := &githubfake.Comments{Comments: map[int64]string{}}
	svc := confirmServices(t, f, true)
	spec := JobSpec{Key: "github:acme/store#3/comment/1", Targets: []target.Target{target.MustParse("github:acme/store#3")}, Title: "slower here",
		BaseRef: "main", CandidateRef: "pr", Source: "github"}
	if _, _, err := svc.Enqueue(context.Background(), spec); err != nil {
		t.Fatal(err)
	}
	body := waitComment(t, f, "Regression not confirmed on a second host")
	t.Logf("answer:\n%s", body)
	if strings.Contains(body, "WORSE") || !strings.Contains(body, "0 worse") || !strings.Contains(body, "Level same") || strings.Contains(body, "Confirmed on") {
		t.Errorf("an unconfirmed regression is still called worse:\n%s", body)
	}
}

// TestConfirmNotQueued: only a worse change of at least min_change, with
// service.confirm set, waits for a second host; anything else is answered
// at once.
func TestConfirmNotQueued(t *testing.T) {
	cfg := servicetest.Config("serve", store.SQLite, filepath.Join(t.TempDir(), "perfbot.db"), true)
	cmpOf := func(v compare.Verdict, pct float64) *compare.Comparison {
		return &compare.Comparison{Base: "base", Candidates: []string{"pr"}, Rows: []compare.Row{{Benchmark: "Level", Unit: "ns/op",
			Base: &compare.Cell{Center: 100}, Candidates: []compare.Candidate{{Variant: "pr", Cell: compare.Cell{Center: 100 + pct},
				DeltaPct: pct, Ratio: 1 + pct/100, P: 0.002, Significant: true, Verdict: v, Presence: compare.Both}}}}}
	}
	svc, err := Open(context.Background(), cfg, ModeServe, Deps{Benchmarker: BenchmarkerFunc(func(context.Context, jobspec.Spec, job.ProgressFunc) (*compare.Comparison, error) {
		return nil, nil
	}), Poster: PosterFunc(func(context.Context, target.Target, answer.Answer) (string, error) { return "", nil })})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	ctx := context.Background()
	pr := JobSpec{Key: "k", Targets: []target.Target{target.MustParse("github:acme/store#3")}, BaseRef: "a", CandidateRef: "b", Source: "github"}
	tracked := pr
	tracked.Key, tracked.Track, tracked.Targets = "t", "main", nil
	for i, tc := range []struct {
		name   string
		min    float64
		spec   JobSpec
		cmp    *compare.Comparison
		queued bool
	}{
		{"no service.confirm", 0, pr, cmpOf(compare.Worse, 20), false},
		{"below min_change", 25, pr, cmpOf(compare.Worse, 20), false},
		{"better", 5, pr, cmpOf(compare.Better, -20), false},
		{"a tracked branch", 5, tracked, cmpOf(compare.Worse, 20), false},
		{"worse", 5, pr, cmpOf(compare.Worse, 20), true},
	} {
		cfg.Service.Confirm = nil
		if tc.min > 0 {
			cfg.Service.Confirm = &config.Confirm{Queue: "confirm", MinChange: config.Percent(tc.min)}
		}
		if got := svc.queueConfirm(ctx, svc.log, tc.spec, tc.cmp, int64(i+1)); got != tc.queued {
			t.Errorf("%s: queued %v, want %v", tc.name, got, tc.queued)
		}
		var n int
		if err := svc.st.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM river_job WHERE kind = 'perfbot_confirm' AND queue = 'confirm'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if want := map[bool]int{false: 0, true: 1}[tc.queued]; n != want {
			t.Errorf("%s: %d confirm jobs, want %d", tc.name, n, want)
		}
	}
	a, err := svc.st.GetAnswer(ctx, "k", "github:acme/store#3")
	if err != nil {
		t.Fatal(err)
	}
	if a.Final || !strings.Contains(string(a.Message), "measured worse here (Level); confirming on a second host") {
		t.Errorf("answer while confirming (final %v): %s", a.Final, a.Message)
	}
}

// A Go suite's rows carry the host's GOMAXPROCS suffix: the confirm job's
// -bench filter must still select the benchmark, and a second host with
// another number of cores must still match its rows.
func TestConfirmGoNames(t *testing.T) {
	row := func(name string, v compare.Verdict) compare.Row {
		return compare.Row{Benchmark: name, Unit: "sec/op", Base: &compare.Cell{Center: 1, N: 6},
			Candidates: []compare.Candidate{{Variant: "pr", Cell: compare.Cell{Center: 2, N: 6}, Presence: compare.Both, Verdict: v, DeltaPct: 100, Ratio: 2, P: 0.002}}}
	}
	first := &compare.Comparison{Base: "base", Candidates: []string{"pr"}, Rows: []compare.Row{row("Work-2", compare.Worse), row("Other-2", compare.Same)}}
	names := worseRows(first, 5)
	if fmt.Sprint(names) != "[Work]" {
		t.Fatalf("worse rows %v, want [Work]", names)
	}
	if f := bisect.BenchFilter(names); !regexp.MustCompile(f).MatchString("BenchmarkWork") || regexp.MustCompile(f).MatchString("BenchmarkOther") {
		t.Errorf("filter %s does not select exactly BenchmarkWork", f)
	}
	again := &compare.Comparison{Base: "base", Candidates: []string{"pr"}, Rows: []compare.Row{row("Work-4", compare.Worse)}}
	if _, line := confirmVerdict(first, again, names, "host-b"); !strings.Contains(line, "Confirmed on a second host (host-b): Work +100%") {
		t.Errorf("second host with 4 cores: %q, want Work confirmed", line)
	}
}
