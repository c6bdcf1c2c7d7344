package gerrit_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/target"

	"github.com/perfbot/perfbot/internal/fake/gerritfake"
	"github.com/perfbot/perfbot/venue/gerrit"
)

const patch = "From 1111 Mon Sep 17 00:00:00 2001\nSubject: [PATCH] wal: batch fsync\n\n---\ndiff --git a/wal.go b/wal.go\n--- a/wal.go\n+++ b/wal.go\n@@ -1 +1 @@\n-a\n+b\n"

var alice = gerritfake.Account{ID: 1001, Name: "Alice", Username: "alice", Email: "alice@example.org"}

func newSite(t *testing.T) *gerritfake.Server {
	f := gerritfake.New(t)
	f.AddChange(gerritfake.Change{Number: 1234, Project: "platform/store", Branch: "main", ChangeID: "I8473b95934b5732ac55d26311a706c9c2bde9940",
		Subject: "wal: batch fsync", Owner: alice})
	f.AddPatchSet(1234, gerritfake.PatchSet{SHA: "aaaa111122223333444455556666777788889999", Uploader: alice, Patch: patch})
	f.AddPatchSet(1234, gerritfake.PatchSet{SHA: "bbbb111122223333444455556666777788889999", Uploader: alice, Patch: patch})
	return f
}

func newClient(t *testing.T, f *gerritfake.Server, label string) *gerrit.Client {
	c, err := gerrit.New(gerrit.Config{BaseURL: f.URL, User: f.User, Password: f.Password, Label: label})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func result(summary string, state answer.State, provenance string) answer.Answer {
	return answer.Answer{Key: "gerrit:1234/2", Summary: summary, State: state,
		Renderings: map[answer.Format]answer.Rendering{answer.Text: {Full: "WORSE: BenchmarkWAL 4.1 -> 3.6 ms\n\nname  old  new\nBenchmarkWAL  4.1ms  3.6ms\n\nstarted: " + provenance + "\n\nRun page (every table, charts, flame graphs, raw results): https://perfbot.example.org/runs/7\n"}}}
}

// TestPostAndRerun: a patch set gets one review message (tagged, voting
// the configured label); a retried delivery and a rerun with the same
// verdict add nothing; a changed verdict adds a message; another patch
// set gets its own.
func TestPostAndRerun(t *testing.T) {
	f := newSite(t)
	c := newClient(t, f, "Performance")
	ctx := context.Background()
	link, err := c.Post(ctx, target.MustParse("gerrit:1234"), result("0 better, 1 worse", answer.StateFailure, "09:00"))
	if err != nil {
		t.Fatal(err)
	}
	if want := f.URL + "/c/platform/store/+/1234/2"; link != want {
		t.Errorf("link %q, want %q", link, want)
	}
	got := f.ByPerfbot(1234)
	if len(got) != 1 {
		t.Fatalf("%d messages, want 1", len(got))
	}
	m := got[0]
	if m.Tag != gerrit.Tag || m.Revision != 2 || !strings.HasPrefix(m.Message, "Patch Set 2: Performance-1\n\n") {
		t.Errorf("message %+v", m)
	}
	for _, want := range []string{"\n    name  old  new\n", "\n    BenchmarkWAL  4.1ms  3.6ms\n", "\nRun page (every table, charts, flame graphs, raw results): https://perfbot.example.org/runs/7\n"} {
		if !strings.Contains(m.Message, want) {
			t.Errorf("message lacks %q:\n%s", want, m.Message)
		}
	}
	if v := f.Change(1234).Votes; len(v) != 1 || v[0] != "Performance-1" {
		t.Errorf("votes %v", v)
	}
	// A retry of the same delivery and a rerun with the same verdict.
	for _, at := range []string{"09:00", "10:30"} {
		if _, err := c.Post(ctx, target.MustParse("gerrit:1234/2"), result("0 better, 1 worse", answer.StateFailure, at)); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(f.ByPerfbot(1234)); n != 1 {
		t.Fatalf("after the rerun with the same verdict: %d messages, want 1", n)
	}
	// The verdict changed: a new message, the old one left alone.
	if _, err := c.Post(ctx, target.MustParse("gerrit:1234/2"), result("0 better, 0 worse", answer.StateSuccess, "11:00")); err != nil {
		t.Fatal(err)
	}
	if got := f.ByPerfbot(1234); len(got) != 2 || got[0].Message != m.Message || !strings.HasPrefix(got[1].Message, "Patch Set 2: Performance+1\n\n") {
		t.Fatalf("after a changed verdict: %+v", got)
	}
	// Patch set 1, named by the full change id: its own message.
	if _, err := c.Post(ctx, target.MustParse("gerrit:platform/store~main~I8473b95934b5732ac55d26311a706c9c2bde9940/1"), result("0 better, 0 worse", answer.StateSuccess, "12:00")); err != nil {
		t.Fatal(err)
	}
	if got := f.ByPerfbot(1234); len(got) != 3 || got[2].Revision != 1 {
		t.Fatalf("patch set 1: %+v", got)
	}
}

// TestPostNoLabel votes nothing without a label, and an error result
// votes nothing even with one.
func TestPostNoLabel(t *testing.T) {
	f := newSite(t)
	ctx := context.Background()
	if _, err := newClient(t, f, "").Post(ctx, target.MustParse("gerrit:1234"), result("1 worse", answer.StateFailure, "x")); err != nil {
		t.Fatal(err)
	}
	if _, err := newClient(t, f, "Performance").Post(ctx, target.MustParse("gerrit:1234/1"), result("build failed", answer.StateError, "x")); err != nil {
		t.Fatal(err)
	}
	if v := f.Change(1234).Votes; len(v) != 0 {
		t.Errorf("votes %v, want none", v)
	}
	if got := f.ByPerfbot(1234); len(got) != 2 || !strings.HasPrefix(got[0].Message, "Patch Set 2:\n\n") {
		t.Errorf("%+v", got)
	}
}

// TestForgedFooter: a message by someone else, with perfbot's tag and a
// copied footer, does not stop perfbot from answering.
func TestForgedFooter(t *testing.T) {
	f := newSite(t)
	c := newClient(t, f, "")
	ctx := context.Background()
	msg := result("1 worse", answer.StateFailure, "x")
	if _, err := c.Post(ctx, target.MustParse("gerrit:1234"), msg); err != nil {
		t.Fatal(err)
	}
	posted := f.ByPerfbot(1234)[0].Message
	footer := posted[strings.LastIndex(posted, "\n[perfbot ")+1:]
	// Alice posts a "better" answer with perfbot's footer for the next
	// verdict; perfbot must still post its own.
	f2 := newSite(t)
	f2.CommentTagged(1234, 2, alice, "all fine\n"+footer, gerrit.Tag)
	c2 := newClient(t, f2, "")
	if _, err := c2.Post(ctx, target.MustParse("gerrit:1234"), msg); err != nil {
		t.Fatal(err)
	}
	if n := len(f2.ByPerfbot(1234)); n != 1 {
		t.Errorf("perfbot posted %d messages, want 1", n)
	}
}

func TestPostErrors(t *testing.T) {
	f := newSite(t)
	ctx := context.Background()
	bad, err := gerrit.New(gerrit.Config{BaseURL: f.URL, User: f.User, Password: "wrong-password-abcdef"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = bad.Post(ctx, target.MustParse("gerrit:1234"), result("1 worse", answer.StateFailure, "x"))
	var ae *gerrit.APIError
	if !errors.As(err, &ae) || ae.Status != http.StatusUnauthorized || strings.Contains(err.Error(), "wrong-password") {
		t.Errorf("wrong password: %v", err)
	}
	if _, err := bad.Check(ctx); err == nil || strings.Contains(err.Error(), "wrong-password") {
		t.Errorf("check with a wrong password: %v", err)
	}
	c := newClient(t, f, "")
	if who, err := c.Check(ctx); err != nil || who != "signed in as perfbot" {
		t.Errorf("check: %q %v", who, err)
	}
	if _, err := c.Post(ctx, target.MustParse("gerrit:9999"), result("x", answer.StateFailure, "x")); !errors.As(err, &ae) || ae.Status != 404 {
		t.Errorf("unknown change: %v", err)
	}
	if _, err := c.Post(ctx, target.MustParse("gerrit:1234/7"), result("x", answer.StateFailure, "x")); !errors.As(err, &ae) || ae.Status != 404 {
		t.Errorf("unknown patch set: %v", err)
	}
	if _, err := c.Post(ctx, target.MustParse("gerrit:1234"), answer.Answer{Renderings: map[answer.Format]answer.Rendering{answer.Text: {Full: "x"}}}); err == nil {
		t.Error("a message without a key was posted")
	}
	if _, err := newClient(t, f, "Nonexistent").Post(ctx, target.MustParse("gerrit:1234"), result("x", answer.StateFailure, "x")); err == nil || !strings.Contains(err.Error(), "not a configured label") {
		t.Errorf("unknown label: %v", err)
	}
	for _, cfg := range []gerrit.Config{{}, {BaseURL: "ftp://x"}, {BaseURL: f.URL}, {BaseURL: f.URL, User: "u"}} {
		if _, err := gerrit.New(cfg); err == nil {
			t.Errorf("New(%+v) accepted", cfg)
		}
	}
}

func TestPatch(t *testing.T) {
	f := newSite(t)
	f.AddPatchSet(1234, gerritfake.PatchSet{SHA: "cccc111122223333444455556666777788889999", Uploader: alice, Patch: "<html><body>Sign in</body></html>"})
	c := newClient(t, f, "")
	ctx := context.Background()
	got, err := c.Patch(ctx, "1234", 2)
	if err != nil || got != patch {
		t.Fatalf("patch set 2: %q %v", got, err)
	}
	_, err = c.Patch(ctx, "1234", 3)
	var np *gerrit.NotPatchError
	if !errors.As(err, &np) {
		t.Errorf("an HTML page as patch: %v", err)
	}
}

func TestDecode(t *testing.T) {
	var v map[string]int
	if err := gerrit.Decode([]byte(")]}'\n{\"a\":1}"), &v); err != nil || v["a"] != 1 {
		t.Errorf("%v %v", v, err)
	}
	if err := gerrit.Decode([]byte(`{"a":1}`), &v); err == nil {
		t.Error("an answer without the )]}' line was accepted")
	}
}

func TestBody(t *testing.T) {
	long := strings.Repeat("BenchmarkX  1.0 ± 2%  2.0µs\n", 2000)
	b := gerrit.Body(answer.Answer{Renderings: map[answer.Format]answer.Rendering{answer.Text: {Full: "WORSE: 1 worse\n\n" + long + "\nRun page (every table): https://p.example.org/runs/1\n"}}})
	if len(b) > gerrit.MessageLimit || !strings.HasPrefix(b, "    WORSE: 1 worse\n") || !strings.HasSuffix(b, "\nRun page (every table): https://p.example.org/runs/1\n") || !strings.Contains(b, "cut to fit") {
		t.Errorf("long body (%d chars) starts %q ends %q", len(b), b[:40], b[len(b)-80:])
	}
	// Markup in benchmark names stays inside the preformatted block.
	b = gerrit.Body(answer.Answer{Renderings: map[answer.Format]answer.Rendering{answer.Text: {Full: "x\n[click](https://evil.example)\n"}}})
	if !strings.Contains(b, "\n    [click](https://evil.example)\n") {
		t.Errorf("%q", b)
	}
}

// TestQueryPages reads a query's answer page by page (n=, S=, and
// _more_changes on the last change of a page).
func TestQueryPages(t *testing.T) {
	f := gerritfake.New(t)
	for i := 1; i <= 230; i++ {
		f.Tick(time.Second)
		f.AddChange(gerritfake.Change{Number: i, Project: "store", Branch: "main", Subject: "c", Owner: alice})
		f.AddPatchSet(i, gerritfake.PatchSet{SHA: fmt.Sprintf("%040x", i), Uploader: alice})
	}
	f.AddChange(gerritfake.Change{Number: 999, Project: "store", Branch: "main", Status: "MERGED"})
	cs, err := newClient(t, f, "").Query(context.Background(), "status:open", 500)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, c := range cs {
		seen[c.Number] = true
		if c.PatchSet() != 1 || c.Owner.Login() != "alice" || c.Updated.IsZero() {
			t.Fatalf("change %+v", c)
		}
	}
	if len(cs) != 230 || len(seen) != 230 || cs[0].Number != 230 {
		t.Errorf("%d changes (%d distinct), first %d", len(cs), len(seen), cs[0].Number)
	}
	if cs, _ := newClient(t, f, "").Query(context.Background(), "status:open", 120); len(cs) != 120 {
		t.Errorf("limit 120: %d changes", len(cs))
	}
}
