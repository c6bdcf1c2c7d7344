package track

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/internal/storetest"
	"github.com/perfbot/perfbot/store"
	"github.com/perfbot/perfbot/track/changepoint"
)

// level is a fake measurement: each commit "cN" runs at levels[N] with a
// small spread; the parent side at its own level.
func level(levels []float64) Measure {
	at := func(c string) float64 {
		var n int
		fmt.Sscanf(c, "c%d", &n)
		return levels[n]
	}
	return func(ctx context.Context, parent, commit string) (*compare.Comparison, error) {
		if commit == "c5" {
			return nil, fmt.Errorf("build failed")
		}
		b, c := at(parent), at(commit)
		return &compare.Comparison{Base: "parent", Candidates: []string{"commit"}, Rows: []compare.Row{{
			Benchmark: "BenchmarkX", Params: bench.Params{{Name: "n", Value: "1"}}, Unit: "ns/op",
			Base: &compare.Cell{Center: b, N: 3, Samples: []float64{b, b, b}},
			Candidates: []compare.Candidate{{Variant: "commit", Presence: compare.Both,
				Cell: compare.Cell{Center: c, N: 3, Samples: []float64{c, c, c}}}},
		}}}, nil
	}
}

func chain(from, to int) []Commit {
	var out []Commit
	for i := from; i <= to; i++ {
		out = append(out, Commit{Hash: fmt.Sprintf("c%d", i), Parent: fmt.Sprintf("c%d", i-1)})
	}
	return out
}

func TestBackfillAndDetect(t *testing.T) {
	ctx := context.Background()
	st := storetest.SQLite(t)
	levels := make([]float64, 20)
	for i := range levels {
		levels[i] = 100 + float64(i%3)
		if i >= 12 {
			levels[i] *= 2
		}
	}
	const name = "/r@main"
	// The newer half first, then the older: the history follows the
	// parent links, not the order of the runs.
	n, err := Backfill(ctx, st, name, chain(10, 19), level(levels), nil)
	if err != nil || n != 10 {
		t.Fatalf("backfill: %d, %v", n, err)
	}
	n, err = Backfill(ctx, st, name, append(chain(1, 10), Commit{Hash: "c0"}), level(levels), nil)
	if err == nil || !strings.Contains(err.Error(), "commit c5: build failed") || n != 8 {
		t.Fatalf("backfill of the older half: %d, %v; want 8 and c5's failure", n, err)
	}
	res, err := Detect(ctx, st, name, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Commits != 20 || res.Series != 1 {
		t.Errorf("%d commits, %d series; want 20 and 1", res.Commits, res.Series)
	}
	if len(res.Found) != 1 || res.Found[0].Commit != "c12" || res.Found[0].CommitBefore != "c11" || len(res.Added) != 1 {
		t.Fatalf("found %+v", res.Found)
	}
	// c5 failed, but c6 measured it as its baseline.
	c := res.Found[0]
	if c.NBefore != 12 || c.NAfter != 8 || math.Abs(c.DeltaPct-100) > 2 || c.Params.String() != "n=1" || c.RunID == 0 {
		t.Errorf("change point %+v", c)
	}
	// Detecting again adds nothing.
	res, err = Detect(ctx, st, name, Options{})
	if err != nil || len(res.Added) != 0 || len(res.Found) != 1 {
		t.Fatalf("again: %+v, %v", res, err)
	}
	// A calibrated noise of 150% hides a 100% change.
	res, err = Detect(ctx, st, name, Options{Noise: func(store.SeriesKey) (float64, bool) { return 150, true }})
	if err != nil || len(res.Found) != 0 {
		t.Fatalf("under 150%% noise: %+v, %v", res, err)
	}
	cps, err := st.ChangePoints(ctx, store.ChangePointFilter{})
	if err != nil || len(cps) != 0 {
		t.Errorf("the unposted change point stays after a detection without it: %+v", cps)
	}
	if _, err := Detect(ctx, st, name, Options{Detect: changepoint.Options{Alpha: 3}}); err == nil {
		t.Error("alpha 3: no error")
	}
}

func TestHistoryOrder(t *testing.T) {
	runs := []store.Run{
		{ID: 3, BaseCommit: "b", CandidateCommit: "c"},
		{ID: 1, BaseCommit: "a", CandidateCommit: "b"},
		{ID: 7, BaseCommit: "x", CandidateCommit: "y"},
		{ID: 4, BaseCommit: "c", CandidateCommit: "d"},
	}
	k := store.SeriesKey{Benchmark: "B", Unit: "ns/op"}
	points := []store.TrackedPoint{
		{RunID: 3, Parent: "b", Commit: "c", Key: k, Centre: 3},
		{RunID: 3, Parent: "b", Commit: "c", Base: true, Key: k, Centre: 2.5},
		{RunID: 1, Parent: "a", Commit: "b", Base: true, Key: k, Centre: 1},
		{RunID: 1, Parent: "a", Commit: "b", Key: k, Centre: 2},
		{RunID: 4, Parent: "c", Commit: "d", Key: k, Centre: 4},
	}
	h := History(runs, points)
	if got := strings.Join(h.Commits, ""); got != "abcdxy" {
		t.Errorf("order %s, want abcdxy", got)
	}
	vals := h.Series[k]
	for i, want := range []float64{1, 2, 3, 4} {
		if vals[i] != want {
			t.Errorf("value %d = %v, want %v (all %v)", i, vals[i], want, vals)
		}
	}
	if !math.IsNaN(vals[4]) || h.RunOf[1] != 1 || h.RunOf[0] != 0 {
		t.Errorf("values %v, runs %v", vals, h.RunOf)
	}
	// b's own run measured 1 -> 2; c's 2.5 -> 3; d's baseline is unknown.
	paired := h.Paired[k]
	if !math.IsNaN(paired[0]) || paired[1] != 100 || math.Abs(paired[2]-20) > 1e-9 || !math.IsNaN(paired[3]) {
		t.Errorf("paired %v", paired)
	}
}

func TestMessageEscapes(t *testing.T) {
	c := store.ChangePoint{ID: 4, Track: "/r@main", Benchmark: "<script>|*x*", Unit: "ns/op", Commit: "0123456789abcdef",
		CommitBefore: "fedcba9876543210", Before: 100, After: 200, DeltaPct: 100, P: 0.0001, MinChangePct: 5}
	m := Message(c)
	if m.Key != "changepoint-4" || strings.Contains(m.Full(answer.MarkdownGFM), "<script>") || strings.Contains(m.Full(answer.HTML), "<script>") ||
		!strings.Contains(m.Full(answer.Text), "fedcba987654..0123456789ab") || !strings.Contains(m.Subject, "+100.0%") {
		t.Errorf("message %+v", m)
	}
}

// TestHostStepNotConfirmed: the host got twice as slow from the tenth run
// on, for both sides of each run alike. The history steps, but no commit's
// own run saw a change: nothing is reported.
func TestHostStepNotConfirmed(t *testing.T) {
	ctx := context.Background()
	st := storetest.SQLite(t)
	runs := 0
	measure := func(ctx context.Context, parent, commit string) (*compare.Comparison, error) {
		runs++
		host := 100.0
		if runs >= 10 {
			host = 200
		}
		b, c := host+float64(runs%3), host+float64((runs+1)%3)
		return &compare.Comparison{Base: "parent", Candidates: []string{"commit"}, Rows: []compare.Row{{
			Benchmark: "BenchmarkX", Unit: "ns/op",
			Base: &compare.Cell{Center: b, N: 1, Samples: []float64{b}},
			Candidates: []compare.Candidate{{Variant: "commit", Presence: compare.Both,
				Cell: compare.Cell{Center: c, N: 1, Samples: []float64{c}}}},
		}}}, nil
	}
	if _, err := Backfill(ctx, st, "/r@main", chain(1, 20), measure, nil); err != nil {
		t.Fatal(err)
	}
	res, err := Detect(ctx, st, "/r@main", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Found) != 0 {
		t.Errorf("a step of the host was reported: %+v", res.Found)
	}
}
