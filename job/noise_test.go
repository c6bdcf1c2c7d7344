package job

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/store"
)

// TestNoiseHistoryFalseAlarms: a false-alarm mark on this host in the store
// raises its benchmark's threshold in the verdicts' History, and the
// comparison's note says who marked it.
func TestNoiseHistoryFalseAlarms(t *testing.T) {
	ctx := context.Background()
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "perfbot.db")
	st, err := store.Open(ctx, store.SQLite, db)
	if err != nil {
		t.Fatal(err)
	}
	run := &store.Run{JobKey: "k", JobID: 1}
	if _, err := st.StartRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	row := &compare.Row{Benchmark: "Checksum-2", Unit: "ns/op"}
	k, err := store.NoiseKeyOf(row)
	if err != nil {
		t.Fatal(err)
	}
	marks := []store.FalseAlarm{{RunID: run.ID, Host: host, Key: k, Verdict: "worse", DeltaPct: 40, By: "alice"},
		{RunID: run.ID, Host: "elsewhere", Key: k, Verdict: "worse", DeltaPct: 90, By: "bob"}}
	if err := st.AddFalseAlarms(ctx, marks); err != nil {
		t.Fatal(err)
	}
	st.Close()

	h, err := loadNoise(ctx, db, "")
	if err != nil {
		t.Fatal(err)
	}
	n, ok := h.lookup(row)
	if !ok || n.ThresholdPct != 50 {
		t.Fatalf("threshold of a benchmark marked at +40%% here = %+v, %v; want 50%%", n, ok)
	}
	if _, ok := h.lookup(&compare.Row{Benchmark: "Append-2", Unit: "ns/op"}); ok {
		t.Fatal("an unmarked benchmark without history has a threshold")
	}
	cmp := &compare.Comparison{Rows: []compare.Row{{Benchmark: "Checksum-2", Unit: "ns/op",
		Candidates: []compare.Candidate{{Presence: compare.Both, Test: compare.TestMannWhitney}}}}}
	h.annotate(cmp)
	c := cmp.Rows[0].Candidates[0]
	if c.NoiseThresholdPct == nil || *c.NoiseThresholdPct != 50 || len(c.Warnings) != 1 ||
		!strings.Contains(c.Warnings[0], "marked a false alarm, last by alice") {
		t.Fatalf("annotated candidate = %+v", c)
	}
}
