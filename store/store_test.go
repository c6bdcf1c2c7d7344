package store

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/internal/pgtest"
)

// eachStore runs f on a fresh SQLite store and on a fresh PostgreSQL store.
func eachStore(t *testing.T, f func(t *testing.T, s *Store)) {
	t.Run("sqlite", func(t *testing.T) {
		s, err := Open(context.Background(), SQLite, filepath.Join(t.TempDir(), "perfbot.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		f(t, s)
	})
	t.Run("postgres", func(t *testing.T) {
		srv := pgtest.Start(t)
		s, err := Open(context.Background(), Postgres, srv.NewDB(t))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		f(t, s)
	})
}

func sampleComparison() *compare.Comparison {
	return &compare.Comparison{
		Base:       "base",
		Candidates: []string{"patch"},
		Rows: []compare.Row{{
			Benchmark: "BenchmarkScan",
			Params:    bench.Params{{Name: "threads", Value: "10"}},
			Unit:      "ns/op",
			Base:      &compare.Cell{Center: 100, N: 3, Samples: []float64{99, 100, 101}},
			Candidates: []compare.Candidate{{
				Variant: "patch", Cell: compare.Cell{Center: 80, N: 3, Samples: []float64{79, 80, 81}},
				DeltaPct: -20, Ratio: 0.8, P: 0.01, Alpha: 0.05, Verdict: compare.Better, Significant: true,
			}},
		}, {
			Benchmark: "BenchmarkScan",
			Params:    bench.Params{{Name: "threads", Value: "10"}},
			Unit:      "ops/s", Better: bench.HigherIsBetter,
			Base: &compare.Cell{Center: 5, N: 5, Summarized: true, Summary: &bench.Summary{Mean: 5, Error: 0.1, Confidence: 0.999, N: 5}},
			Candidates: []compare.Candidate{{
				Variant: "patch", Cell: compare.Cell{Center: 5, N: 5, Summarized: true, Summary: &bench.Summary{Mean: 5, N: 5}},
				Verdict: compare.Same,
			}},
		}},
	}
}

func TestMigrateTwice(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		if err := s.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		v, err := s.SchemaVersion(ctx)
		if err != nil || v != len(migrations) {
			t.Fatalf("schema version = %d, %v; want %d", v, err, len(migrations))
		}
	})
}

func TestRunLifecycle(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		r := &Run{JobKey: "github:acme/store#12:abc", JobID: 7, Venue: "github", Target: "acme/store#12",
			Suites: "wal", BaseRef: "main", CandidateRef: "pull/12/head", Worker: "host-a",
			Title: "acme/store#12: wal: buffer appends <64 KiB>"}
		id, err := s.StartRun(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		// A retry of the same job reuses the run and counts the attempt.
		r2 := &Run{JobKey: r.JobKey, JobID: 7, Worker: "host-b"}
		id2, err := s.StartRun(ctx, r2)
		if err != nil || id2 != id {
			t.Fatalf("restart: id %d, %v; want %d", id2, err, id)
		}
		stale, err := s.StaleRuns(ctx, time.Now().Add(time.Minute))
		if err != nil || len(stale) != 1 || stale[0].Attempt != 2 || stale[0].Worker != "host-b" {
			t.Fatalf("stale runs = %+v, %v", stale, err)
		}
		if err := s.Heartbeat(ctx, id); err != nil {
			t.Fatal(err)
		}
		c := sampleComparison()
		for range 2 { // saving twice replaces, never duplicates
			if err := s.SaveComparison(ctx, id, c); err != nil {
				t.Fatal(err)
			}
		}
		r.ID, r.Status, r.BaseCommit, r.CandidateCommit = id, StatusDone, "1111111111111111", "2222222222222222"
		if err := s.FinishRun(ctx, r); err != nil {
			t.Fatal(err)
		}
		got, err := s.GetRun(ctx, id)
		if err != nil || got.Status != StatusDone || got.Finished.IsZero() || got.Attempt != 2 ||
			got.Title != "acme/store#12: wal: buffer appends <64 KiB>" {
			t.Fatalf("run = %+v, %v", got, err)
		}
		res, err := s.Results(ctx, id)
		if err != nil || len(res) != 4 {
			t.Fatalf("results = %d, %v; want 4", len(res), err)
		}
		if len(res[1].Samples) != 3 || res[2].Summary == nil || res[2].Summary.Confidence != 0.999 || res[2].Better != bench.HigherIsBetter {
			t.Errorf("results lost data: %+v", res)
		}
		back, err := s.Comparison(ctx, id)
		if err != nil || len(back.Rows) != 2 || back.Rows[0].Candidates[0].Verdict != compare.Better {
			t.Fatalf("comparison = %+v, %v", back, err)
		}
		hist, err := s.History(ctx, "BenchmarkScan")
		if err != nil || len(hist) != 4 {
			t.Fatalf("history = %+v, %v", hist, err)
		}
		var out bytes.Buffer
		if err := WriteHistory(&out, hist); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"111111111111  base", "222222222222  patch", "better (-20.0%)", "threads=10"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("history table lacks %q:\n%s", want, out.String())
			}
		}
		ch, err := s.Changes(ctx, time.Now().Add(-time.Hour), time.Now().Add(time.Hour))
		if err != nil || len(ch) != 1 || ch[0].Verdict != "better" || ch[0].Target != "acme/store#12" {
			t.Fatalf("changes = %+v, %v", ch, err)
		}
	})
}

func TestPostsSeenTested(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		if _, err := s.GetPost(ctx, "github", "o/r#1", "k"); err == nil {
			t.Fatal("GetPost of nothing succeeded")
		}
		for _, state := range []string{"pending", "success"} {
			if err := s.RecordPost(ctx, Post{Venue: "github", Target: "o/r#1", JobKey: "k", Link: "https://x/1", State: state}); err != nil {
				t.Fatal(err)
			}
		}
		p, err := s.GetPost(ctx, "github", "o/r#1", "k")
		if err != nil || p.Count != 2 || p.State != "success" || p.Link != "https://x/1" {
			t.Fatalf("post = %+v, %v", p, err)
		}
		for i, want := range []bool{true, false} {
			fresh, err := s.SeeDelivery(ctx, "d-1")
			if err != nil || fresh != want {
				t.Fatalf("delivery %d: fresh = %v, %v; want %v", i, fresh, err, want)
			}
			fresh, err = s.MarkTested(ctx, "jira", "STORE-1", "10001", "k")
			if err != nil || fresh != want {
				t.Fatalf("tested %d: fresh = %v, %v; want %v", i, fresh, err, want)
			}
		}
		if n, err := s.PruneDeliveries(ctx, time.Now().Add(time.Minute)); err != nil || n != 1 {
			t.Errorf("pruned %d deliveries, %v; want 1", n, err)
		}
		if fresh, _ := s.SeeDelivery(ctx, "d-1"); !fresh {
			t.Error("a pruned delivery id is still remembered")
		}
		if ok, _ := s.Tested(ctx, "jira", "STORE-1", "10002"); ok {
			t.Error("untested attachment reported tested")
		}
		at := time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC)
		if err := s.SetScheduleLast(ctx, "nightly", at); err != nil {
			t.Fatal(err)
		}
		if got, err := s.ScheduleLast(ctx, "nightly"); err != nil || !got.Equal(at) {
			t.Fatalf("schedule last = %v, %v", got, err)
		}
	})
}

func TestLastDoneRun(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		for i, key := range []string{"schedule:nightly_wal@2026-11-28T03:00Z", "schedule:nightly_wal@2026-11-29T03:00Z", "schedule:nightlyXwal@2026-11-30T03:00Z"} {
			r := &Run{JobKey: key, JobID: int64(100 + i)}
			if _, err := s.StartRun(ctx, r); err != nil {
				t.Fatal(err)
			}
			r.Status, r.CandidateCommit = StatusDone, fmt.Sprintf("c%d", i)
			if err := s.FinishRun(ctx, r); err != nil {
				t.Fatal(err)
			}
			time.Sleep(2 * time.Millisecond)
		}
		got, err := s.LastDoneRun(ctx, "schedule:nightly_wal@")
		if err != nil || got.CandidateCommit != "c1" {
			t.Fatalf("LastDoneRun = %+v, %v; want the run with commit c1 (_ is not a wildcard)", got, err)
		}
	})
}
