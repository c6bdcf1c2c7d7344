package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/store"
)

func TestFalseAlarmCmd(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "perfbot.db")
	st, err := store.Open(ctx, store.SQLite, db)
	if err != nil {
		t.Fatal(err)
	}
	run := &store.Run{JobKey: "github:acme/store#12/comment/1", JobID: 1, Venue: "github", Target: "acme/store#12"}
	if _, err := st.StartRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	cmp := &compare.Comparison{Base: "base", Candidates: []string{"patch"}, Rows: []compare.Row{{
		Benchmark: "Checksum-2", Params: bench.Params{{Name: "size", Value: "1k"}}, Unit: "ns/op",
		Base:       &compare.Cell{Center: 1000, N: 5},
		Candidates: []compare.Candidate{{Variant: "patch", Cell: compare.Cell{Center: 1490, N: 5}, DeltaPct: 49, Verdict: compare.Worse}},
	}}}
	if err := st.SaveComparison(ctx, run.ID, cmp); err != nil {
		t.Fatal(err)
	}
	run.Status, run.Host = store.StatusDone, json.RawMessage(`{"name":"ci-1"}`)
	if err := st.FinishRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	st.Close()

	var out, errOut bytes.Buffer
	for _, bad := range [][]string{
		{"false-alarm", "--db", db, "--run", "1", "Checksum"},                                                  // no --by
		{"false-alarm", "--db", db, "--by", "alice", "Checksum"},                                               // no run
		{"false-alarm", "--db", db, "--run", "1", "--target", "github:acme/store#12", "--by", "a", "Checksum"}, // both
		{"false-alarm", "--db", db, "--run", "1", "--by", "alice"},                                             // no benchmark
	} {
		if err := runCLI(t, bad, &out, &errOut); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if err := runCLI(t, []string{"false-alarm", "--db", db, "--run", "1", "--by", "alice", "Append"}, &out, &errOut); err == nil ||
		!strings.Contains(err.Error(), "Checksum/size=1k") {
		t.Errorf("an unflagged benchmark: %v; want the flagged ones named", err)
	}
	out.Reset()
	if err := runCLI(t, []string{"false-alarm", "--db", db, "--target", "github:acme/store#12", "Checksum",
		"--by", "alice", "--reason", "busy \x1b[31mrunner"}, &out, &errOut); err != nil {
		t.Fatalf("mark: %v\n%s", err, errOut.String())
	}
	if !strings.Contains(out.String(), "marked 1 verdict of run 1 a false alarm") ||
		!strings.Contains(out.String(), "on host ci-1: changes below 61.2% are no longer called better or worse there") {
		t.Errorf("mark output:\n%s", out.String())
	}
	out.Reset()
	if err := runCLI(t, []string{"false-alarm", "--db", db, "--list", "--run", "1"}, &out, &errOut); err != nil {
		t.Fatalf("list: %v\n%s", err, errOut.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "RUN") || !strings.Contains(lines[1], `Checksum-2 {"size":"1k"}`) ||
		!strings.Contains(lines[1], "worse    +49.0%  ci-1  alice  cli") || strings.Contains(lines[1], "\x1b") ||
		!strings.Contains(lines[1], "runner") {
		t.Errorf("list output:\n%s", out.String())
	}
}
