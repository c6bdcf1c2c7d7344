package falsealarm

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/stats"
	"github.com/perfbot/perfbot/store"
)

func TestMatches(t *testing.T) {
	goRow := &compare.Row{Benchmark: "Checksum-2", Params: bench.Params{{Name: "size", Value: "1k"}}}
	javaRow := &compare.Row{Benchmark: "TaskStoreBenchmarks.MemFetchTasksBenchmark.run"}
	for _, tc := range []struct {
		row   *compare.Row
		bench string
		want  bool
	}{
		{goRow, "Checksum", true},
		{goRow, "Checksum-2", true},
		{goRow, "BenchmarkChecksum", true},
		{goRow, "Checksum/size=1k", true},
		{goRow, "Checksum/size=2k", false},
		{goRow, "Checksum/threads=1", false},
		{goRow, "Checksum/size", false},
		{goRow, "Check", false},
		{goRow, "Sum", false},
		{goRow, "", false},
		{goRow, "/size=1k", false},
		{javaRow, "MemFetchTasksBenchmark.run", true},
		{javaRow, "run", true},
		{javaRow, "TaskStoreBenchmarks.MemFetchTasksBenchmark.run", true},
		{javaRow, "Benchmark.run", false},
	} {
		if got := Matches(tc.row, tc.bench); got != tc.want {
			t.Errorf("Matches(%s, %q) = %v, want %v", tc.row.Benchmark, tc.bench, got, tc.want)
		}
	}
}

func TestRaise(t *testing.T) {
	marks := []store.FalseAlarm{{DeltaPct: 20}, {DeltaPct: -40}}
	if got := ThresholdPct(marks); got != 50 {
		t.Fatalf("threshold of marks +20%% and -40%% = %v, want 50 (1.25 x 40)", got)
	}
	n, ok := Raise(stats.Noise{}, false, marks)
	if !ok || n.ThresholdPct != 50 || n.N != 0 {
		t.Fatalf("marks without history = %+v, %v", n, ok)
	}
	n, ok = Raise(stats.Noise{ThresholdPct: 70, N: 9}, true, marks)
	if !ok || n.ThresholdPct != 70 || n.N != 9 {
		t.Fatalf("a learned threshold above the marks' = %+v, %v; want it kept", n, ok)
	}
	if _, ok := Raise(stats.Noise{}, false, nil); ok {
		t.Fatal("no history and no marks said something")
	}
}

func seq(base, step float64, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = base + step*float64(i%5) - 2*step
	}
	return v
}

func results(factor float64) []*bench.Result {
	base := seq(100, 0.5, 10)
	cand := make([]float64, len(base))
	for i := range base {
		cand[i] = base[i] * factor
	}
	return []*bench.Result{
		{Benchmark: "Checksum-2", Unit: "ns/op", Variant: "base", Samples: base},
		{Benchmark: "Checksum-2", Unit: "ns/op", Variant: "patch", Samples: cand},
		{Benchmark: "Append-2", Unit: "ns/op", Variant: "base", Samples: base},
		{Benchmark: "Append-2", Unit: "ns/op", Variant: "patch", Samples: cand},
	}
}

func compareWith(t *testing.T, factor float64, history func(*compare.Row) (stats.Noise, bool)) *compare.Comparison {
	t.Helper()
	cmp, err := compare.Compare(results(factor), compare.Options{Base: "base", Candidates: []string{"patch"},
		Verdicts: compare.VerdictOptions{History: history}})
	if err != nil {
		t.Fatal(err)
	}
	return cmp
}

func verdictOf(t *testing.T, cmp *compare.Comparison, name string) compare.Verdict {
	t.Helper()
	for _, r := range cmp.Rows {
		if r.Benchmark == name {
			return r.Candidates[0].Verdict
		}
	}
	t.Fatalf("no row %s", name)
	return ""
}

// TestMarkRaisesThreshold marks a +30% worse verdict on a host and compares
// again: the same change is no longer worse there, a larger one (beyond
// Margin) still is, an unmarked benchmark and another host are untouched.
func TestMarkRaisesThreshold(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, store.SQLite, filepath.Join(t.TempDir(), "perfbot.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	first := compareWith(t, 1.3, nil)
	if v := verdictOf(t, first, "Checksum-2"); v != compare.Worse {
		t.Fatalf("a 30%% slowdown is %s before any mark", v)
	}
	run := &store.Run{JobKey: "github:acme/store#12/comment/1", JobID: 1, Venue: "github", Target: "acme/store#12"}
	if _, err := st.StartRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	if err := st.SaveComparison(ctx, run.ID, first); err != nil {
		t.Fatal(err)
	}
	run.Status, run.Host = store.StatusDone, json.RawMessage(`{"name":"ci-1"}`)
	if err := st.FinishRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	if _, err := Mark(ctx, st, Request{Run: run, Benches: []string{"Nope"}, By: "alice"}); err == nil ||
		!strings.Contains(err.Error(), "Append") || !strings.Contains(err.Error(), "Checksum") {
		t.Fatalf("marking an unknown benchmark: %v; want an error listing the flagged ones", err)
	}
	if _, err := Mark(ctx, st, Request{Run: run, Benches: []string{"Checksum"}}); err == nil {
		t.Fatal("a mark by nobody was recorded")
	}
	marks, err := Mark(ctx, st, Request{Run: run, Benches: []string{"Checksum"}, By: "alice", Venue: "github",
		Reason: "runner was busy", At: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if len(marks) != 1 || marks[0].Host != "ci-1" || marks[0].Verdict != "worse" || marks[0].DeltaPct < 29 {
		t.Fatalf("marks = %+v", marks)
	}
	if d := Describe(marks); len(d) != 1 || !strings.Contains(d[0], "Checksum-2 ns/op (worse, +30.0%) on host ci-1") {
		t.Fatalf("described as %q", d)
	}

	history := func(host string) func(*compare.Row) (stats.Noise, bool) {
		onHost, err := st.FalseAlarmsOnHost(ctx, host)
		if err != nil {
			t.Fatal(err)
		}
		return func(row *compare.Row) (stats.Noise, bool) {
			k, err := store.NoiseKeyOf(row)
			if err != nil {
				t.Fatal(err)
			}
			return Raise(stats.Noise{}, false, onHost[k])
		}
	}
	again := compareWith(t, 1.3, history("ci-1"))
	if v := verdictOf(t, again, "Checksum-2"); v != compare.Same {
		t.Errorf("the marked change again on the marked host: %s, want same", v)
	}
	if v := verdictOf(t, again, "Append-2"); v != compare.Worse {
		t.Errorf("an unmarked benchmark: %s, want worse", v)
	}
	if v := verdictOf(t, compareWith(t, 1.5, history("ci-1")), "Checksum-2"); v != compare.Worse {
		t.Errorf("a +50%% change beyond the raised threshold: %s, want worse", v)
	}
	if v := verdictOf(t, compareWith(t, 1.3, history("ci-2")), "Checksum-2"); v != compare.Worse {
		t.Errorf("the marked change on another host: %s, want worse", v)
	}
}
