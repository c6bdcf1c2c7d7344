package service

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/digest"
	"github.com/perfbot/perfbot/internal/servicetest"
	"github.com/perfbot/perfbot/store"
	"github.com/perfbot/perfbot/target"
)

// BenchmarkServeSteady measures the memory of a `perfbot serve` whose
// SQLite store holds 10,000 finished runs (one an hour, each a comparison
// of 12 rows with verdicts) and whose queue holds 1,000 jobs no worker
// takes, while it answers what a loaded service answers: the metrics
// endpoint with its queue depth gauges, a weekly digest with its trend
// charts, a benchmark's history and the last nightly run. It reports the
// live heap after the fill (heap-MiB), its growth over the loop
// (heap-growth-MiB) and the resident set at the end (rss-MiB).
// PERFBOT_SERVE_RUNS and PERFBOT_SERVE_JOBS change the sizes.
func BenchmarkServeSteady(b *testing.B) {
	runs, jobs := envInt("PERFBOT_SERVE_RUNS", 10000), envInt("PERFBOT_SERVE_JOBS", 1000)
	ctx := context.Background()
	cfg := servicetest.Config("steady", store.SQLite, filepath.Join(b.TempDir(), "perfbot.db"), false)
	svc, err := Open(ctx, cfg, ModeServe, Deps{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	defer svc.Close()
	st := svc.Store()
	end := time.Now().UTC().Truncate(time.Hour)
	if err := fillRuns(ctx, st, runs, end); err != nil {
		b.Fatal(err)
	}
	for i := range jobs {
		job := JobSpec{Key: fmt.Sprintf("github:acme/store#%d/comment/%d", i, i), Targets: []target.Target{target.MustParse(fmt.Sprintf("github:acme/store#%d", i))},
			CandidateRef: fmt.Sprintf("pull/%d/head", i), Source: "github"}
		if _, _, err := svc.Enqueue(ctx, job); err != nil {
			b.Fatal(err)
		}
	}
	h := svc.Handler()
	exercise := func() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
		if want := fmt.Sprintf(`perfbot_queue_jobs{queue="%s",state="available"} %d`, cfg.Service.Queue, jobs); !strings.Contains(rec.Body.String(), want) {
			b.Fatalf("metrics lack %q:\n%s", want, rec.Body.String())
		}
		d, err := digest.Build(ctx, st, end.Add(-7*24*time.Hour), end.Add(time.Hour), digest.Options{Title: "weekly"})
		if err != nil {
			b.Fatal(err)
		}
		if d.Counts.Patches == 0 || d.Counts.Regressions == 0 {
			b.Fatalf("digest of a week of nightly runs: %d runs measured, %d regressions", d.Counts.Patches, d.Counts.Regressions)
		}
		if _, err := st.LastDoneRun(ctx, "nightly:"); err != nil {
			b.Fatal(err)
		}
		if _, err := st.RunsByKey(ctx, "nightly:5"); err != nil {
			b.Fatal(err)
		}
	}
	exercise()
	heap0 := liveHeap()
	b.ResetTimer()
	for b.Loop() {
		exercise()
	}
	b.StopTimer()
	heap1 := liveHeap()
	b.ReportMetric(float64(heap0)/(1<<20), "heap-MiB")
	b.ReportMetric(float64(int64(heap1)-int64(heap0))/(1<<20), "heap-growth-MiB")
	b.ReportMetric(rssMiB(), "rss-MiB")
}

// fillRuns stores n finished nightly runs of main, one an hour up to end.
func fillRuns(ctx context.Context, st *store.Store, n int, end time.Time) error {
	for i := range n {
		r := &store.Run{JobKey: fmt.Sprintf("nightly:%d", i), JobID: int64(1_000_000 + i), Venue: "mail", Target: "dev@example.org",
			Suites: "wal", BaseRef: "refs/heads/main~1", BaseCommit: fmt.Sprintf("%040x", i), CandidateRef: "refs/heads/main",
			CandidateCommit: fmt.Sprintf("%040x", i+1), Worker: "steady"}
		id, err := st.StartRun(ctx, r)
		if err != nil {
			return err
		}
		if err := st.SaveComparison(ctx, id, nightly(i)); err != nil {
			return err
		}
		r.Status = store.StatusDone
		if err := st.FinishRun(ctx, r); err != nil {
			return err
		}
	}
	// One run an hour, the last an hour before end.
	_, err := st.DB().ExecContext(ctx, `UPDATE runs SET finished_at = strftime('%Y-%m-%dT%H:%M:%S.000000Z', ?, '-' || (? - id) || ' hours') WHERE job_key LIKE 'nightly:%'`,
		end.Add(-time.Hour).Format("2006-01-02 15:04:05"), n)
	return err
}

// nightly is run i's comparison: 4 benchmarks in 3 units, 6 samples each,
// every seventh run one of them worse.
func nightly(i int) *compare.Comparison {
	var rs []*bench.Result
	for _, v := range []string{"base", "main"} {
		for k, name := range []string{"Append", "Sync", "Replay", "Compact"} {
			for s := range 6 {
				ns := 1000*float64(k+1) + float64(s)
				if v == "main" && i%7 == 0 && k == i%4 {
					ns *= 1.5
				}
				for _, u := range []struct {
					unit string
					v    float64
				}{{"ns/op", ns}, {"B/op", 64}, {"allocs/op", 2}} {
					rs = append(rs, &bench.Result{Benchmark: name, Unit: u.unit, Better: bench.LowerIsBetter, Samples: []float64{u.v}, Variant: v})
				}
			}
		}
	}
	c, err := compare.Compare(rs, compare.Options{Base: "base"})
	if err != nil {
		panic(err)
	}
	return c
}

// liveHeap is the heap in use after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// rssMiB is the process's resident set size in MiB (0 when unknown).
func rssMiB() float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			return kb / 1024
		}
	}
	return 0
}

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}
