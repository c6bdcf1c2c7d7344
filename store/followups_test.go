package store

import (
	"context"
	"errors"
	"slices"
	"testing"
)

// TestFollowUps: a follow-up is opened by a request's run, landed by its
// target (the merge) or its key (a matched commit), once, decided once and
// put once; a request run again before that follows its newer run.
func TestFollowUps(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		var runs []int64
		for i := range 2 {
			r := &Run{JobKey: "github:acme/store#3/comment/30", Venue: "github", Target: "acme/store#3"}
			if _, err := s.CreateRun(ctx, r); err != nil {
				t.Fatal(err)
			}
			if i == 1 {
				if err := s.SaveComparison(ctx, r.ID, sampleComparison()); err != nil {
					t.Fatal(err)
				}
			}
			runs = append(runs, r.ID)
		}
		key := "github:acme/store#3/comment/30"
		for _, id := range runs {
			if err := s.OpenFollowUp(ctx, FollowUp{Key: key, RunID: id, Venue: "github", Target: "acme/store#3"}); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.OpenFollowUp(ctx, FollowUp{Key: "mail:<p@x>", RunID: runs[0], Venue: "mail", Target: "<p@x>", PatchID: "abc"}); err != nil {
			t.Fatal(err)
		}
		if n, err := s.LandTarget(ctx, "github", "acme/store#3", "c1", LandedMerged); err != nil || n != 1 {
			t.Fatalf("LandTarget = %d, %v", n, err)
		}
		if n, _ := s.LandTarget(ctx, "github", "acme/store#3", "c2", LandedMerged); n != 0 {
			t.Error("a landed request landed again")
		}
		if err := s.LandFollowUp(ctx, "mail:<p@x>", "c3", LandedPatchID); err != nil {
			t.Fatal(err)
		}
		f, err := s.GetFollowUp(ctx, key)
		if err != nil || f.RunID != runs[1] || f.Landed != "c1" || f.LandedHow != LandedMerged || f.State != FollowUpOpen {
			t.Fatalf("follow-up %+v, %v", f, err)
		}
		lines := []string{"BenchmarkScan threads=10 (ns/op)\tconfirmed on main at c1: -20.0%"}
		for i, want := range []bool{true, false} {
			if ok, err := s.DecideFollowUp(ctx, key, "repo@main", lines); err != nil || ok != want {
				t.Errorf("DecideFollowUp #%d = %v, %v", i+1, ok, err)
			}
		}
		if err := s.OpenFollowUp(ctx, FollowUp{Key: key, RunID: runs[0], Venue: "github", Target: "acme/store#3"}); err != nil {
			t.Fatal(err)
		}
		decided, err := s.FollowUps(ctx, FollowUpDecided)
		if err != nil || len(decided) != 1 || decided[0].RunID != runs[1] || !slices.Equal(decided[0].Lines, lines) || decided[0].Track != "repo@main" {
			t.Fatalf("decided follow-ups %+v, %v", decided, err)
		}
		if err := s.FollowUpPut(ctx, key); err != nil {
			t.Fatal(err)
		}
		if open, err := s.FollowUps(ctx, FollowUpOpen); err != nil || len(open) != 1 || open[0].Landed != "c3" || open[0].PatchID != "abc" {
			t.Errorf("open follow-ups %+v, %v", open, err)
		}
		if f, _ := s.GetFollowUp(ctx, key); f.State != FollowUpPosted {
			t.Errorf("state %q after put", f.State)
		}
		if _, err := s.GetFollowUp(ctx, "nope"); !errors.Is(err, ErrNotFound) {
			t.Errorf("unknown follow-up: %v", err)
		}
		vs, err := s.RunVerdicts(ctx, runs[1], "better", "worse")
		if err != nil || len(vs) != 1 || vs[0].Key.Benchmark != "BenchmarkScan" || vs[0].DeltaPct != -20 || vs[0].Key.Params != `{"threads":"10"}` {
			t.Errorf("RunVerdicts = %+v, %v", vs, err)
		}
	})
}
