package store

import (
	"context"
	"testing"
	"time"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/compare"
)

// trackRun stores one finished run of a track: parent against commit.
func trackRun(t *testing.T, s *Store, track, parent, commit string, base, cand float64) int64 {
	t.Helper()
	ctx := context.Background()
	r := &Run{JobKey: "track:" + track + ":" + commit, Venue: VenueTrack, Target: track,
		BaseRef: parent, BaseCommit: parent, CandidateRef: commit, CandidateCommit: commit}
	if _, err := s.CreateRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	cmp := &compare.Comparison{Base: "base", Candidates: []string{commit}, Rows: []compare.Row{{
		Benchmark: "BenchmarkScan", Params: bench.Params{{Name: "n", Value: "1"}}, Unit: "ns/op",
		Base: &compare.Cell{Center: base, N: 1, Samples: []float64{base}},
		Candidates: []compare.Candidate{{Variant: commit, Presence: compare.Both,
			Cell: compare.Cell{Center: cand, N: 1, Samples: []float64{cand}}}},
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

func TestChangePoints(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		const track = "/repo@main"
		r1 := trackRun(t, s, track, "c0", "c1", 100, 101)
		r2 := trackRun(t, s, track, "c1", "c2", 101, 200)
		// A second run at once: job_id stays NULL, no unique clash.
		trackRun(t, s, "/other@main", "x0", "x1", 1, 1)

		commits, err := s.TrackedCommits(ctx, track)
		if err != nil {
			t.Fatal(err)
		}
		if len(commits) != 2 || !commits["c1"] || !commits["c2"] {
			t.Errorf("tracked commits %v, want c1 and c2", commits)
		}
		pts, err := s.TrackedPoints(ctx, track)
		if err != nil {
			t.Fatal(err)
		}
		if len(pts) != 4 || !pts[0].Base || pts[0].Commit != "c1" || pts[0].Parent != "c0" || pts[1].Base ||
			pts[1].Centre != 101 || pts[3].Centre != 200 || pts[3].RunID != r2 || pts[0].Key.Params != `{"n":"1"}` {
			t.Errorf("tracked points %+v", pts)
		}

		key := pts[0].Key
		cp := ChangePoint{Benchmark: key.Benchmark, Params: bench.Params{{Name: "n", Value: "1"}}, Unit: "ns/op",
			Commit: "c2", CommitBefore: "c1", RunID: r2, NBefore: 2, NAfter: 1, Before: 100.5, BeforeLo: 99,
			BeforeHi: 102, After: 200, AfterLo: 200, AfterHi: 200, DeltaPct: 99, P: 0.001, MinChangePct: 5}
		if k, err := cp.Key(); err != nil || k != key {
			t.Errorf("Key() = %+v, %v; want %+v", k, err, key)
		}
		added, err := s.SaveChangePoints(ctx, track, key, []ChangePoint{cp})
		if err != nil {
			t.Fatal(err)
		}
		if len(added) != 1 || added[0].ID == 0 {
			t.Fatalf("added %+v", added)
		}
		// Found again with new figures: updated, not added.
		cp.After = 210
		again, err := s.SaveChangePoints(ctx, track, key, []ChangePoint{cp})
		if err != nil || len(again) != 0 {
			t.Fatalf("saving again added %+v, %v", again, err)
		}
		got, err := s.ChangePoints(ctx, ChangePointFilter{Track: track})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0].After != 210 || got[0].ID != added[0].ID || got[0].Commit != "c2" ||
			got[0].RunID != r2 || got[0].Params.String() != "n=1" || !got[0].Posted.IsZero() {
			t.Errorf("stored %+v", got)
		}
		unposted, err := s.ChangePoints(ctx, ChangePointFilter{Unposted: true})
		if err != nil || len(unposted) != 1 {
			t.Fatalf("unposted %+v, %v", unposted, err)
		}
		if err := s.MarkChangePointPosted(ctx, got[0].ID, time.Now()); err != nil {
			t.Fatal(err)
		}
		if unposted, _ := s.ChangePoints(ctx, ChangePointFilter{Unposted: true}); len(unposted) != 0 {
			t.Errorf("still unposted: %+v", unposted)
		}

		// Another one, earlier in the history, then a detection that finds
		// neither: the posted one stays, the unposted one goes.
		cp2 := cp
		cp2.Commit, cp2.CommitBefore, cp2.RunID = "c1", "c0", r1
		if _, err := s.SaveChangePoints(ctx, track, key, []ChangePoint{cp, cp2}); err != nil {
			t.Fatal(err)
		}
		all, _ := s.ChangePoints(ctx, ChangePointFilter{})
		if len(all) != 2 || all[0].Commit != "c1" {
			t.Errorf("newest first: %+v", all)
		}
		if _, err := s.SaveChangePoints(ctx, track, key, nil); err != nil {
			t.Fatal(err)
		}
		all, _ = s.ChangePoints(ctx, ChangePointFilter{Benchmark: key.Benchmark})
		if len(all) != 1 || all[0].Commit != "c2" || all[0].Posted.IsZero() {
			t.Errorf("after a detection finding none: %+v", all)
		}
	})
}
