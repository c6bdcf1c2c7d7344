package store

import (
	"context"
	"fmt"
	"testing"

	"github.com/perfbot/perfbot/bench"
)

// TestRecentPoints checks that a series holds the newest points of its row on
// its ref, oldest first, and nothing of other refs, units or parameters.
func TestRecentPoints(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		for i := range 7 {
			ref := "refs/heads/main"
			if i%3 == 2 {
				ref = "refs/heads/other"
			}
			r := &Run{JobKey: fmt.Sprintf("nightly:%d", i), JobID: int64(100 + i), CandidateRef: ref}
			id, err := s.StartRun(ctx, r)
			if err != nil {
				t.Fatal(err)
			}
			c := sampleComparison()
			c.Rows[0].Candidates[0].Center = float64(80 + i)
			if err := s.SaveComparison(ctx, id, c); err != nil {
				t.Fatal(err)
			}
			r.Status = StatusDone
			if err := s.FinishRun(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
		q := RecentQuery{Benchmark: "BenchmarkScan", Params: bench.Params{{Name: "threads", Value: "10"}}, Unit: "ns/op", Ref: "refs/heads/main", Last: 3}
		got, err := s.RecentPoints(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		// Runs 0, 1, 3, 4 and 6 are main's: the newest three are 3, 4, 6.
		var centres []float64
		for _, p := range got {
			if p.Variant != "patch" || p.Ref != "refs/heads/main" || p.Verdict != "better" || p.Unit != "ns/op" {
				t.Errorf("point %+v", p)
			}
			centres = append(centres, p.Centre)
		}
		if fmt.Sprint(centres) != "[83 84 86]" {
			t.Errorf("centres %v, want [83 84 86]", centres)
		}
		q.Params = bench.Params{{Name: "threads", Value: "1"}}
		if got, err := s.RecentPoints(ctx, q); err != nil || len(got) != 0 {
			t.Errorf("series of other parameters: %v, %v", got, err)
		}
	})
}
