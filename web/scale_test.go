package web

import (
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perfbot/perfbot/internal/pgtest"
	"github.com/perfbot/perfbot/internal/storetest"
	"github.com/perfbot/perfbot/store"
)

// scaleStore opens an empty store on driver for a scale test.
func scaleStore(tb testing.TB, driver string) *store.Store {
	tb.Helper()
	dsn := filepath.Join(tb.TempDir(), "perfbot.db")
	if driver == store.Postgres {
		dsn = pgtest.Start(tb).NewDB(tb)
	}
	st, err := store.Open(context.Background(), driver, dsn)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	return st
}

// scalePage is a page measured over a filled store.
type scalePage struct{ name, path string }

// scalePages are the pages measured over a filled store, each with its
// JSON twin. stepRun is the run that measured the change points.
func scalePages(stepRun, lastRun int64, sh storetest.Shape) []scalePage {
	name, group, params := storetest.BulkSeries(sh.StepEvery * (sh.Benchmarks / sh.StepEvery / 2))
	history := seriesURL("", name, group, params, "ns/op", "", "main")
	return []scalePage{
		{"home", "/"}, {"api-home", "/api/home"},
		{"run", fmt.Sprintf("/runs/%d", stepRun)}, {"api-run", fmt.Sprintf("/api/runs/%d", stepRun)},
		{"run-all-page-2", fmt.Sprintf("/runs/%d?rows=all&page=2", lastRun)},
		{"search", "/benchmarks?q=bench12+size=3"}, {"api-search", "/api/benchmarks?q=bench12+size=3"},
		{"search-wide", "/benchmarks?q=pkg5"}, {"search-none", "/benchmarks?q=zzz"},
		{"name", "/benchmarks/" + name}, {"history", history}, {"api-history", "/api" + history},
		{"changes", "/changes"}, {"api-changes", "/api/changes"},
	}
}

// loadAverage is the one-minute load average, or -1.
func loadAverage() float64 {
	data, err := os.ReadFile("/proc/loadavg")
	var l float64
	if err != nil {
		return -1
	}
	if _, err := fmt.Sscan(string(data), &l); err != nil {
		return -1
	}
	return l
}

// BenchmarkPages measures every page over a store of 10,000 series
// measured at 100 commits (1,000,000 results), on SQLite and on
// PostgreSQL, and reports each page's median and 95th percentile answer
// time, the time of its first answer (before the server kept anything
// read), its size and the load average while it was measured.
// PERFBOT_WEB_SCALE=SERIESxCOMMITS sets another size;
// PERFBOT_WEB_DRIVERS=sqlite or postgres measures one database.
func BenchmarkPages(b *testing.B) {
	sh := storetest.Shape{Benchmarks: 10000, Commits: 100}
	if v := os.Getenv("PERFBOT_WEB_SCALE"); v != "" {
		if _, err := fmt.Sscanf(v, "%dx%d", &sh.Benchmarks, &sh.Commits); err != nil || sh.Benchmarks < 100 || sh.Commits < 4 {
			b.Fatalf("PERFBOT_WEB_SCALE=%q: want SERIESxCOMMITS, at least 100x4", v)
		}
	}
	sh.StepEvery, sh.StepAt = 100, sh.Commits/2+1
	drivers := []string{store.SQLite, store.Postgres}
	if v := os.Getenv("PERFBOT_WEB_DRIVERS"); v != "" {
		drivers = strings.Split(v, ",")
	}
	for _, driver := range drivers {
		b.Run(driver, func(b *testing.B) {
			ctx := context.Background()
			st := scaleStore(b, driver)
			start := time.Now()
			ids, err := storetest.Fill(ctx, st, sh)
			if err != nil {
				b.Fatal(err)
			}
			b.Logf("%s: filled %d results (%d series x %d commits) in %v, load average %.1f", driver,
				sh.Benchmarks*sh.Commits, sh.Benchmarks, sh.Commits, time.Since(start).Round(time.Second), loadAverage())
			ws, err := New(st, nil)
			if err != nil {
				b.Fatal(err)
			}
			srv := httptest.NewServer(ws.Handler())
			defer srv.Close()
			for _, pg := range scalePages(ids[sh.StepAt/2], ids[len(ids)-1], sh) {
				page := pg.path
				b.Run(pg.name, func(b *testing.B) {
					var took []time.Duration
					var size int64
					for b.Loop() {
						t0 := time.Now()
						resp, err := srv.Client().Get(srv.URL + page)
						if err != nil {
							b.Fatal(err)
						}
						size, _ = io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
						if resp.StatusCode != 200 {
							b.Fatalf("%s: %s", page, resp.Status)
						}
						took = append(took, time.Since(t0))
					}
					first := took[0]
					slices.Sort(took)
					ms := func(q int) float64 { return float64(took[(len(took)-1)*q/100].Microseconds()) / 1000 }
					b.ReportMetric(ms(50), "p50-ms")
					b.ReportMetric(ms(95), "p95-ms")
					b.ReportMetric(float64(first.Microseconds())/1000, "first-ms")
					b.ReportMetric(float64(size), "bytes")
					b.ReportMetric(loadAverage(), "load1")
				})
			}
		})
	}
}
