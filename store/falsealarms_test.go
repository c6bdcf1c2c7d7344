package store

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"
)

func TestFalseAlarms(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		var ids []int64
		for i, target := range []string{"acme/store#12", "acme/store#12", "acme/store#13"} {
			r := &Run{JobKey: "github:" + target + ":" + string(rune('a'+i)), JobID: int64(i + 1), Venue: "github", Target: target}
			if _, err := s.StartRun(ctx, r); err != nil {
				t.Fatal(err)
			}
			r.Status, r.Host = StatusDone, []byte(`{"name":"ci-1"}`)
			if err := s.FinishRun(ctx, r); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, r.ID)
		}
		latest, err := s.LatestRunOf(ctx, "github", "acme/store#12")
		if err != nil || latest.ID != ids[1] {
			t.Fatalf("latest run of #12 = %+v, %v; want run %d", latest, err, ids[1])
		}
		if _, err := s.LatestRunOf(ctx, "github", "acme/store#99"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("latest run of #99: %v, want ErrNotFound", err)
		}

		at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
		key := NoiseKey{Benchmark: "Checksum-2", Params: `{"size":"1k"}`, Unit: "ns/op"}
		marks := []FalseAlarm{
			{RunID: ids[1], Host: "ci-1", Key: key, Variant: "patch", Verdict: "worse", DeltaPct: 49.2,
				By: "alice", Venue: "github", Reason: "busy <runner>", At: at},
			{RunID: ids[2], Host: "ci-2", Key: key, Variant: "patch", Verdict: "better", DeltaPct: -12,
				By: "bob", Venue: "cli", At: at.Add(time.Hour)},
		}
		if err := s.AddFalseAlarms(ctx, marks); err != nil {
			t.Fatal(err)
		}
		got, err := s.FalseAlarmsOfRun(ctx, ids[1])
		if err != nil || len(got) != 1 {
			t.Fatalf("marks of run %d = %+v, %v", ids[1], got, err)
		}
		m := got[0]
		if m.ID == 0 || m.Host != "ci-1" || m.Key != key || m.Verdict != "worse" || m.DeltaPct != 49.2 ||
			m.By != "alice" || m.Venue != "github" || m.Reason != "busy <runner>" || !m.At.Equal(at) {
			t.Fatalf("mark read back = %+v", m)
		}
		if got, err := s.FalseAlarmsOfRun(ctx, ids[0]); err != nil || len(got) != 0 {
			t.Fatalf("marks of an unmarked run = %+v, %v", got, err)
		}
		byKey, err := s.FalseAlarmsOnHost(ctx, "ci-2")
		if err != nil || len(byKey) != 1 || len(byKey[key]) != 1 || byKey[key][0].By != "bob" {
			t.Fatalf("marks on ci-2 = %+v, %v", byKey, err)
		}
		all, err := s.FalseAlarms(ctx, 1)
		if err != nil || len(all) != 1 || all[0].By != "bob" {
			t.Fatalf("latest mark = %+v, %v", all, err)
		}
		if all, err := s.FalseAlarms(ctx, 0); err != nil || len(all) != 2 {
			t.Fatalf("all marks = %+v, %v", all, err)
		}
		// A change that is not a number is refused, and nothing of the
		// batch is kept.
		bad := []FalseAlarm{marks[0], {RunID: ids[0], Host: "ci-1", Key: key, DeltaPct: math.NaN(), By: "eve"}}
		if err := s.AddFalseAlarms(ctx, bad); err == nil {
			t.Fatal("a NaN change was recorded")
		}
		if all, err := s.FalseAlarms(ctx, 0); err != nil || len(all) != 2 {
			t.Fatalf("after a refused batch: %d marks, %v", len(all), err)
		}
	})
}
