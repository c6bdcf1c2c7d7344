package falsealarm

import (
	"strings"
	"testing"
	"time"

	"github.com/perfbot/perfbot/store"
)

// TestWriteTable prints a mark with its parameters and says so when there
// is none.
func TestWriteTable(t *testing.T) {
	var b strings.Builder
	if err := WriteTable(&b, nil); err != nil || b.String() != "no verdict is marked a false alarm\n" {
		t.Errorf("no marks: %q, %v", b.String(), err)
	}
	b.Reset()
	marks := []store.FalseAlarm{{RunID: 7, Key: store.NoiseKey{Benchmark: "Append", Params: `{"threads":"10"}`, Unit: "ns/op"},
		Verdict: "worse", DeltaPct: 4.25, Host: "h1", By: "ana", Venue: "cli", At: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC), Reason: "noisy neighbour"}}
	if err := WriteTable(&b, marks); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 2 || strings.Join(strings.Fields(lines[1]), " ") != `7 Append {"threads":"10"} ns/op worse +4.2% h1 ana cli 2026-12-01 10:00:00 noisy neighbour` {
		t.Errorf("table:\n%s", b.String())
	}
	if got := RowName(store.NoiseKey{Benchmark: "Append", Params: "{}"}); got != "Append" {
		t.Errorf("RowName without parameters = %q", got)
	}
}
