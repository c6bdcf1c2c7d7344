package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/store"
)

// hostileName carries a colour (ESC[31m), an OSC 8 hyperlink and a
// right-to-left override, as a benchmark's output or a mail subject can.
const hostileName = "BenchmarkEvil\x1b[31mred\x1b]8;;http://evil.test/\x07click\x1b]8;;\x07\u202egnp.exe\x9b2J"

// rawEscape reports the first control character of out that a terminal
// would obey, if any.
func rawEscape(out string) string {
	for _, bad := range []string{"\x1b", "\x07", "\u202e", "\x9b", "\u009b"} {
		if strings.Contains(out, bad) {
			return bad
		}
	}
	return ""
}

// TestHistoryAndStatusShowNoRawEscape: a benchmark name and an answer's
// key and error holding terminal escapes and a bidi override are printed
// by perfbot history and perfbot status with the escapes made visible.
func TestHistoryAndStatusShowNoRawEscape(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "perfbot.db")
	st, err := store.Open(ctx, store.SQLite, db)
	if err != nil {
		t.Fatal(err)
	}
	run := &store.Run{JobKey: "mail:evil@x/v1", JobID: 1}
	if _, err := st.StartRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	cmp := &compare.Comparison{Base: "base", Candidates: []string{"patch\u202e"}, Rows: []compare.Row{{
		Benchmark: hostileName, Group: "grp\x1b[2J", Params: bench.Params{{Name: "n\x1b[1m", Value: "1\u202e"}}, Unit: "ns/op",
		Base:       &compare.Cell{Center: 1200, N: 5},
		Candidates: []compare.Candidate{{Variant: "patch\u202e", Cell: compare.Cell{Center: 1000, N: 5}, DeltaPct: -16.7, Verdict: compare.Better}},
	}}}
	if err := st.SaveComparison(ctx, run.ID, cmp); err != nil {
		t.Fatal(err)
	}
	run.Status, run.BaseCommit, run.CandidateCommit = store.StatusDone, "aaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbb"
	if err := st.FinishRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	if _, err := st.PutAnswer(ctx, "mail:"+hostileName, "mail:dev@lists.example.org", "success", true, []byte(`{}`), now, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.ClaimAnswers(ctx, "me", now, time.Minute, 10); err != nil {
		t.Fatal(err)
	}
	st.AnswerRetry(ctx, "mail:"+hostileName, "mail:dev@lists.example.org", "smtp: 550 no such subject "+hostileName, now, now.Add(time.Minute))
	st.Close()

	for _, args := range [][]string{
		{"history", "--db", db, hostileName}, // the exact name
		{"history", "--db", db, "evil"},      // a search
		{"status", "--db", db},
	} {
		var out, errb bytes.Buffer
		if err := runCLI(t, args, &out, &errb); err != nil {
			t.Fatalf("%s: %v\n%s", args[0], err, errb.String())
		}
		if bad := rawEscape(out.String() + errb.String()); bad != "" {
			t.Errorf("perfbot %s printed a raw %q:\n%q", args[0], bad, out.String())
		}
		if !strings.Contains(out.String(), `n\x1b[1m=1\u202e`) && args[0] == "history" {
			t.Errorf("perfbot history does not show the parameters with their escapes visible:\n%s", out.String())
		}
		if args[len(args)-1] != hostileName && !strings.Contains(out.String(), `BenchmarkEvil\x1b[31mred\x1b]8;;http://evil.test/\x07click\x1b]8;;\x07\u202egnp.exe\x9b2J`) {
			t.Errorf("perfbot %s does not show the name with its escapes visible:\n%s", args[0], out.String())
		}
	}
}
