package store

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/compare"
)

// digestRun stores one finished run measuring BenchmarkScan.
func digestRun(t *testing.T, s *Store, r *Run) int64 {
	t.Helper()
	ctx := context.Background()
	r.Host = []byte(`{"cpu":"big host blob"}`)
	if _, err := s.CreateRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	cmp := &compare.Comparison{Base: "base", Candidates: []string{"cand"}, Rows: []compare.Row{{
		Benchmark: "BenchmarkScan", Params: bench.Params{{Name: "n", Value: "1"}}, Unit: "ns/op",
		Base: &compare.Cell{Center: 100, N: 1, Samples: []float64{100}},
		Candidates: []compare.Candidate{{Variant: "cand", Presence: compare.Both,
			Cell: compare.Cell{Center: 100, N: 1, Samples: []float64{100}}}},
	}}}
	if err := s.SaveComparison(ctx, r.ID, cmp); err != nil {
		t.Fatal(err)
	}
	r.Status = StatusDone
	if err := s.FinishRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	return r.ID
}

func TestSeriesMeasuredBetweenTrackedOnly(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		from := time.Now().Add(-time.Minute)
		runs := []*Run{
			{JobKey: "track:c1", Venue: VenueTrack, Target: "/repo@main", CandidateRef: "c1"},
			{JobKey: "nightly", Venue: "cli", Target: "/repo", CandidateRef: "refs/heads/main"},
			{JobKey: "nightly-short", Venue: "cli", Target: "/repo", CandidateRef: "release"},
			{JobKey: "pr", Venue: "github", Target: "acme/repo#1", CandidateRef: "refs/pull/1/head"},
			{JobKey: "patched", Venue: "mail", Target: "list", CandidateRef: "refs/heads/main", Patch: "p.diff"},
			{JobKey: "other branch", Venue: "cli", Target: "/repo", CandidateRef: "refs/heads/dev"},
			// TrimPrefix strips refs/heads/ once: not the branch "main".
			{JobKey: "doubled", Venue: "cli", Target: "/repo", CandidateRef: "refs/heads/refs/heads/main"},
		}
		for _, r := range runs {
			digestRun(t, s, r)
		}
		to := time.Now().Add(time.Minute)
		got, err := s.SeriesMeasuredBetween(ctx, from, to, []string{"main", "release"})
		if err != nil {
			t.Fatal(err)
		}
		var refs []string
		for _, m := range got {
			if m.Benchmark != "BenchmarkScan" || m.Params != `{"n":"1"}` {
				t.Errorf("series %+v", m)
			}
			refs = append(refs, m.Venue+" "+m.CandidateRef)
		}
		slices.Sort(refs)
		want := []string{"cli refs/heads/main", "cli release", "track c1"}
		if !slices.Equal(refs, want) {
			t.Errorf("measured by %q, want %q", refs, want)
		}
		got, err = s.SeriesMeasuredBetween(ctx, from, to, nil)
		if err != nil || len(got) != 1 || got[0].Venue != VenueTrack {
			t.Errorf("no branches: %+v, %v; want the track run's only", got, err)
		}
		got, err = s.SeriesMeasuredBetween(ctx, to, to.Add(time.Hour), []string{"main"})
		if err != nil || len(got) != 0 {
			t.Errorf("later period: %+v, %v; want none", got, err)
		}
	})
}

func TestRunsFinishedBetweenSummaries(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		from := time.Now().Add(-time.Minute)
		a := digestRun(t, s, &Run{JobKey: "a", Venue: "github", Target: "acme/repo#1", CandidateRef: "refs/pull/1/head", Patch: "x"})
		b := digestRun(t, s, &Run{JobKey: "b", Venue: VenueTrack, Target: "/repo@main", CandidateRef: "c1"})
		failed := &Run{JobKey: "failed", Venue: "cli"}
		if _, err := s.CreateRun(ctx, failed); err != nil {
			t.Fatal(err)
		}
		failed.Status = StatusFailed
		if err := s.FinishRun(ctx, failed); err != nil {
			t.Fatal(err)
		}
		to := time.Now().Add(time.Minute)
		full, err := s.RunsFinishedBetween(ctx, from, to)
		if err != nil {
			t.Fatal(err)
		}
		sums, err := s.RunSummariesFinishedBetween(ctx, from, to)
		if err != nil {
			t.Fatal(err)
		}
		if len(sums) != 2 || len(full) != 2 || sums[0].ID != a || sums[1].ID != b {
			t.Fatalf("summaries %+v, runs %+v; want runs %d and %d", sums, full, a, b)
		}
		for i, r := range full {
			want := RunSummary{ID: r.ID, JobKey: r.JobKey, Venue: r.Venue, CandidateRef: r.CandidateRef, Patch: r.Patch,
				Finished: r.Finished}
			if sums[i] != want || r.Finished.IsZero() {
				t.Errorf("summary %+v, want %+v", sums[i], want)
			}
		}
		if sums, err := s.RunSummariesFinishedBetween(ctx, to, to.Add(time.Hour)); err != nil || len(sums) != 0 {
			t.Errorf("later period: %+v, %v; want none", sums, err)
		}
	})
}
