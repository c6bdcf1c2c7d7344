package falsealarm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/store"
)

// TestRunOfListAndAck finds the run a mark names by id and by target,
// marks it, acknowledges the marks and lists them by run and overall.
func TestRunOfListAndAck(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, store.SQLite, filepath.Join(t.TempDir(), "perfbot.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var empty bytes.Buffer
	if err := List(ctx, &empty, st, 0); err != nil || !strings.Contains(empty.String(), "no verdict is marked") {
		t.Errorf("list of none: %q, %v", empty.String(), err)
	}
	if _, err := RunOf(ctx, st, 0, "github", "acme/store#12"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a target without runs: %v, want store.ErrNotFound", err)
	}
	run := &store.Run{JobKey: "github:acme/store#12/comment/1", JobID: 1, Venue: "github", Target: "acme/store#12"}
	if _, err := st.StartRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	if err := st.SaveComparison(ctx, run.ID, compareWith(t, 1.3, nil)); err != nil {
		t.Fatal(err)
	}
	run.Status, run.Host = store.StatusDone, json.RawMessage(`{"name":"ci-1"}`)
	if err := st.FinishRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	byTarget, err := RunOf(ctx, st, 0, "github", "acme/store#12")
	if err != nil || byTarget.ID != run.ID {
		t.Fatalf("by target: %+v, %v; want run %d", byTarget, err, run.ID)
	}
	byID, err := RunOf(ctx, st, run.ID, "", "")
	if err != nil || byID.ID != run.ID {
		t.Fatalf("by id: %+v, %v; want run %d", byID, err, run.ID)
	}
	marks, err := Mark(ctx, st, Request{Run: byID, Benches: []string{"Checksum"}, By: "alice", Venue: "cli"})
	if err != nil {
		t.Fatal(err)
	}
	var ack bytes.Buffer
	if err := WriteAck(&ack, marks, run.ID); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(ack.String()), "\n"); len(lines) != 2 ||
		lines[0] != "marked 1 verdict of run 1 a false alarm:" || !strings.HasPrefix(lines[1], "  Checksum-2 ns/op (worse") {
		t.Errorf("acknowledgement:\n%s", ack.String())
	}
	for _, id := range []int64{run.ID, 0} {
		var out bytes.Buffer
		if err := List(ctx, &out, st, id); err != nil {
			t.Fatal(err)
		}
		if lines := strings.Split(strings.TrimSpace(out.String()), "\n"); len(lines) != 2 || !strings.HasPrefix(lines[0], "RUN") ||
			!strings.Contains(lines[1], "Checksum-2") || !strings.Contains(lines[1], "alice") {
			t.Errorf("list of run %d:\n%s", id, out.String())
		}
	}
}
