package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/perfbot/perfbot/bench"
)

func TestPagesQueries(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		prov, _ := json.Marshal(map[string]string{"repo": "https://github.com/acme/store.git"})
		var ids []int64
		for _, commit := range []string{"1111", "2222", "3333"} {
			r := &Run{JobKey: "cli", BaseRef: "main", BaseCommit: commit, CandidateRef: "main", CandidateCommit: commit + "p",
				Patch: "x.patch", Worker: "cli", Provenance: prov}
			id, err := s.RecordRun(ctx, r)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.SaveComparison(ctx, id, sampleComparison()); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		// A run from the queue shares no job id with the recorded ones.
		if _, err := s.StartRun(ctx, &Run{JobKey: "q", JobID: 5}); err != nil {
			t.Fatal(err)
		}
		recent, err := s.RecentRuns(ctx, 2)
		if err != nil || len(recent) != 2 || recent[1].ID != ids[2] || recent[1].Status != StatusDone || recent[1].Finished.IsZero() {
			t.Fatalf("recent runs = %+v, %v", recent, err)
		}
		bs, err := s.Branches(ctx, 10)
		if err != nil || len(bs) != 1 || bs[0].Ref != "main" || bs[0].Runs != 3 || bs[0].LastRun != ids[2] || bs[0].Repo != "https://github.com/acme/store.git" {
			t.Fatalf("branches = %+v, %v", bs, err)
		}

		for q, want := range map[string]int{"": 2, "scan": 2, "SCAN threads=1": 2, "threads=2": 0, "ops/": 1, "scan ns/op": 1, "%": 0, "_": 0, "thr": 2} {
			got, err := s.SearchSeries(ctx, q, 10)
			if err != nil || len(got) != want {
				t.Errorf("search %q: %d series, %v; want %d", q, len(got), err, want)
			}
		}
		// Saving a run again (a retried job) counts it once.
		if err := s.SaveComparison(ctx, ids[1], sampleComparison()); err != nil {
			t.Fatal(err)
		}
		series, err := s.SeriesOf(ctx, "BenchmarkScan", 10)
		if err != nil || len(series) != 2 || series[0].Runs != 3 || series[1].Runs != 3 {
			t.Fatalf("series of BenchmarkScan = %+v, %v", series, err)
		}
		var ns Series
		for _, sr := range series {
			if sr.Unit == "ns/op" {
				ns = sr
			}
		}
		all, err := s.SeriesHistory(ctx, ns, "", 100)
		if err != nil || len(all) != 6 {
			t.Fatalf("history: %d points, %v; want 3 baselines and 3 candidates", len(all), err)
		}
		onMain, err := s.SeriesHistory(ctx, ns, "main", 2)
		if err != nil || len(onMain) != 2 || onMain[0].RunID != ids[1] || onMain[1].RunID != ids[2] || !onMain[1].Baseline ||
			onMain[1].Commit != "3333" || len(onMain[1].Samples) != 3 {
			t.Fatalf("history on main = %+v, %v; want the last two baselines with their samples", onMain, err)
		}
		for _, p := range all {
			if !p.Baseline && (p.Ref != "main + x.patch" || p.Verdict != "better" || p.DeltaPct != -20) {
				t.Errorf("candidate point %+v: want ref main + x.patch, better by 20%%", p)
			}
		}
		if _, err := s.SeriesHistory(ctx, Series{Benchmark: "BenchmarkScan", Params: bench.Params{{Name: "threads", Value: "10"}}, Unit: "ns/op"}, "", 10); err != nil {
			t.Fatal(err)
		}

		files := []Artifact{{Name: "flame-a.svg", ContentType: "image/svg+xml", Data: []byte("<svg/>")},
			{Name: "profile-a.pprof", ContentType: "application/vnd.google.pprof", Data: []byte{0x1f, 0x8b, 0, 0xff}}}
		for range 2 { // saving again replaces
			if err := s.SaveArtifacts(ctx, ids[0], files); err != nil {
				t.Fatal(err)
			}
		}
		list, err := s.Artifacts(ctx, ids[0])
		if err != nil || len(list) != 2 || list[1].Size != 4 || list[1].Data != nil {
			t.Fatalf("artifacts = %+v, %v", list, err)
		}
		a, err := s.Artifact(ctx, ids[0], "profile-a.pprof")
		if err != nil || !bytes.Equal(a.Data, files[1].Data) {
			t.Fatalf("artifact = %+v, %v", a, err)
		}
		if _, err := s.Artifact(ctx, ids[1], "profile-a.pprof"); !errors.Is(err, ErrNotFound) {
			t.Errorf("another run's file: %v, want ErrNotFound", err)
		}
	})
}
