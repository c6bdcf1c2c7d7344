package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/store"
)

func TestHistoryCmd(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "perfbot.db")
	st, err := store.Open(ctx, store.SQLite, db)
	if err != nil {
		t.Fatal(err)
	}
	run := &store.Run{JobKey: "schedule:nightly@2026-11-30T03:00Z", JobID: 1}
	if _, err := st.StartRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	cmp := &compare.Comparison{Base: "base", Candidates: []string{"main"}, Rows: []compare.Row{{
		Benchmark: "BenchmarkWALAppend", Params: bench.Params{{Name: "threads", Value: "10"}}, Unit: "ns/op",
		Base:       &compare.Cell{Center: 1200, N: 5},
		Candidates: []compare.Candidate{{Variant: "main", Cell: compare.Cell{Center: 1000, N: 5}, DeltaPct: -16.7, Verdict: compare.Better}},
	}}}
	if err := st.SaveComparison(ctx, run.ID, cmp); err != nil {
		t.Fatal(err)
	}
	run.Status, run.BaseCommit, run.CandidateCommit = store.StatusDone, "aaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbb"
	if err := st.FinishRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	st.Close()

	var out, errOut bytes.Buffer
	if err := runCLI(t, []string{"history", "--db", db, "BenchmarkWALAppend"}, &out, &errOut); err != nil {
		t.Fatalf("history: %v\n%s", err, errOut.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "DATE") ||
		!strings.Contains(lines[1], "aaaaaaaaaaaa  base     threads=10  1200    ns/op  -") ||
		!strings.Contains(lines[2], "bbbbbbbbbbbb  main     threads=10  1000    ns/op  better (-16.7%)") {
		t.Errorf("history output:\n%s", out.String())
	}
	// Words found in names and parameters, not an exact name.
	if err := runCLI(t, []string{"history", "--db", db, "walappend threads=10"}, &out, &errOut); err != nil {
		t.Fatalf("history search: %v\n%s", err, errOut.String())
	}
	lines = strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 4 || lines[0] != "BenchmarkWALAppend" ||
		!strings.Contains(lines[3], "bbbbbbbbbbbb  main     threads=10  1000    ns/op  better (-16.7%)") {
		t.Errorf("history search output:\n%s", out.String())
	}
	if err := runCLI(t, []string{"history", "--db", db, "BenchmarkNone"}, &out, &errOut); err == nil || !strings.Contains(err.Error(), "no history") {
		t.Errorf("unknown benchmark: %v", err)
	}
	if err := runCLI(t, []string{"history", "--db", db}, &out, &errOut); exitCode(err, &errOut) != 2 {
		t.Errorf("no benchmark: %v, want a usage error", err)
	}
}

func runCLI(t *testing.T, args []string, stdout, stderr *bytes.Buffer) error {
	t.Helper()
	stdout.Reset()
	stderr.Reset()
	return run(context.Background(), args, stdout, stderr)
}
