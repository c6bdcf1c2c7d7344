package track

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/internal/storetest"
	"github.com/perfbot/perfbot/store"
)

// compared measures like a cpu-sim run: each commit "cN" counts about
// levels[N] instructions per op (commits differ in the sixth digit, as
// real counts do), the same in every round, and compare decides.
func compared(levels []float64) Measure {
	at := func(c string) float64 {
		var n int
		fmt.Sscanf(c, "c%d", &n)
		return levels[n] * (1 + float64(n*7%5)*1e-5)
	}
	return func(ctx context.Context, parent, commit string) (*compare.Comparison, error) {
		var rs []*bench.Result
		for range 2 { // cpu-sim stops at two rounds when the counts agree
			for _, side := range []struct{ variant, commit string }{{"parent", parent}, {"commit", commit}} {
				rs = append(rs, &bench.Result{Benchmark: "Sum", Unit: "instructions/op", Metric: bench.Simulated, Better: bench.LowerIsBetter,
					Samples: []float64{at(side.commit)}, Variant: side.variant})
			}
		}
		return compare.Compare(rs, compare.Options{Base: "parent"})
	}
}

// TestRunPathFindsStepAtOnce: eight commits, the fifth 1.5 times slower.
// The history search cannot see a step with four commits a side; the
// fifth commit's own run can, and names it at once.
func TestRunPathFindsStepAtOnce(t *testing.T) {
	ctx := context.Background()
	st := storetest.SQLite(t)
	levels := []float64{1000, 1000, 1000, 1000, 1000, 1500, 1500, 1500, 1500}
	const name = "/r@main"
	// Up to the step only: found as soon as c5 is measured.
	if _, err := Backfill(ctx, st, name, chain(1, 5), compared(levels), nil); err != nil {
		t.Fatal(err)
	}
	res, err := Detect(ctx, st, name, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Found) != 1 || len(res.Added) != 1 {
		t.Fatalf("after c5: found %+v", res.Found)
	}
	c := res.Found[0]
	if c.Commit != "c5" || c.CommitBefore != "c4" || c.FoundBy != store.FoundByRun || c.NBefore != 1 || c.NAfter != 1 ||
		math.Abs(c.Before-1000) > 0.1 || math.Abs(c.After-1500) > 0.1 || math.Abs(c.DeltaPct-50) > 0.01 || c.RunID == 0 || c.Benchmark != "Sum" {
		t.Errorf("change point %+v", c)
	}
	// The rest of the series: still that one change point, kept.
	if _, err := Backfill(ctx, st, name, chain(1, 8), compared(levels), nil); err != nil {
		t.Fatal(err)
	}
	res, err = Detect(ctx, st, name, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Found) != 1 || res.Found[0].Commit != "c5" || len(res.Added) != 0 {
		t.Fatalf("after c8: found %+v, added %+v", res.Found, res.Added)
	}
	cps, err := st.ChangePoints(ctx, store.ChangePointFilter{Track: name})
	if err != nil || len(cps) != 1 || cps[0].FoundBy != store.FoundByRun || cps[0].Commit != "c5" {
		t.Fatalf("stored %+v, %v", cps, err)
	}
	// A minimum change above the step: the run's verdict is not enough.
	res, err = Detect(ctx, st, name, Options{Noise: func(store.SeriesKey) (float64, bool) { return 60, true }})
	if err != nil || len(res.Found) != 0 {
		t.Fatalf("under 60%% noise: %+v, %v", res, err)
	}
}

// TestRunPathBothPaths: a long series, where the history search finds the
// step too; one change point, found by both.
func TestRunPathBothPaths(t *testing.T) {
	ctx := context.Background()
	st := storetest.SQLite(t)
	levels := make([]float64, 17)
	for i := range levels {
		levels[i] = 1000
		if i >= 9 {
			levels[i] = 1500
		}
	}
	if _, err := Backfill(ctx, st, "/r@main", chain(1, 16), compared(levels), nil); err != nil {
		t.Fatal(err)
	}
	res, err := Detect(ctx, st, "/r@main", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Found) != 1 || res.Found[0].Commit != "c9" || res.Found[0].FoundBy != store.FoundByBoth || res.Found[0].NBefore != 9 {
		t.Fatalf("found %+v", res.Found)
	}
}

// TestRunPathNotDecisive: runs whose verdicts are noisy, same, or worse
// by less than the minimum change make no change point, however large
// their change.
func TestRunPathNotDecisive(t *testing.T) {
	ctx := context.Background()
	st := storetest.SQLite(t)
	verdicts := map[string]struct {
		v     compare.Verdict
		delta float64
	}{
		"c2": {compare.Noisy, 45}, "c3": {compare.Same, 30}, "c4": {compare.Worse, 3}, "c5": {compare.Noisy, -35},
		"c6": {compare.Worse, 2}, "c7": {compare.Same, 0},
	}
	measure := func(ctx context.Context, parent, commit string) (*compare.Comparison, error) {
		v, ok := verdicts[commit]
		if !ok {
			v.v = compare.Same
		}
		c := 100 * (1 + v.delta/100)
		return &compare.Comparison{Base: "parent", Candidates: []string{"commit"}, Rows: []compare.Row{{
			Benchmark: "Checksum", Unit: "ns/op",
			Base: &compare.Cell{Center: 100, Lo: 90, Hi: 110, N: 5, Samples: []float64{90, 95, 100, 105, 110}},
			Candidates: []compare.Candidate{{Variant: "commit", Presence: compare.Both, DeltaPct: v.delta, P: 0.001, Verdict: v.v,
				Cell: compare.Cell{Center: c, Lo: c * 0.9, Hi: c * 1.1, N: 5, Samples: []float64{c * 0.9, c, c * 1.1}}}},
		}}}, nil
	}
	if _, err := Backfill(ctx, st, "/r@main", chain(1, 8), measure, nil); err != nil {
		t.Fatal(err)
	}
	res, err := Detect(ctx, st, "/r@main", Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Found {
		if c.FoundBy != store.FoundByHistory {
			t.Errorf("a run that was not decisive made a change point: %+v", c)
		}
	}
}
