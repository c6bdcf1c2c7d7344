package storetest

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/store"
)

// AnsweredRun stores a finished run on host whose answer went to where at
// venue ("gitlab", "acme/store!12"): its comparison calls Checksum-2
// (ns/op) 30% worse and Append-2 the same. It is what a reviewer marks a
// false alarm.
func AnsweredRun(t testing.TB, st *store.Store, venue, where, host string) *store.Run {
	t.Helper()
	return AnsweredRunKey(t, st, venue+":"+where+"/answered", venue, where, host)
}

// AnsweredRunKey is AnsweredRun under the job key key, as an intake
// names its jobs ("mail:ROOT/v1").
func AnsweredRunKey(t testing.TB, st *store.Store, key, venue, where, host string) *store.Run {
	t.Helper()
	ctx := context.Background()
	base := []float64{99, 99.5, 100, 100.5, 101, 99, 99.5, 100, 100.5, 101}
	slower := make([]float64, len(base))
	for i, v := range base {
		slower[i] = v * 1.3
	}
	cmp, err := compare.Compare([]*bench.Result{
		{Benchmark: "Checksum-2", Unit: "ns/op", Variant: "base", Samples: base},
		{Benchmark: "Checksum-2", Unit: "ns/op", Variant: "patch", Samples: slower},
		{Benchmark: "Append-2", Unit: "ns/op", Variant: "base", Samples: base},
		{Benchmark: "Append-2", Unit: "ns/op", Variant: "patch", Samples: base},
	}, compare.Options{Base: "base", Candidates: []string{"patch"}})
	if err != nil {
		t.Fatal(err)
	}
	run := &store.Run{JobKey: key, JobID: 1, Venue: venue, Target: where}
	if _, err := st.StartRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	if err := st.SaveComparison(ctx, run.ID, cmp); err != nil {
		t.Fatal(err)
	}
	hostJSON, err := json.Marshal(map[string]string{"name": host})
	if err != nil {
		t.Fatal(err)
	}
	run.Status, run.Host = store.StatusDone, hostJSON
	if err := st.FinishRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	return run
}
