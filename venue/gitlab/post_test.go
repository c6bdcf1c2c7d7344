package gitlab

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/internal/fake/gitlabfake"
	"github.com/perfbot/perfbot/target"
	"github.com/perfbot/perfbot/venue/retry"
)

const (
	token = "glpat-secret0123456789"
	sha   = "0123456789abcdef0123456789abcdef01234567"
)

var quick = retry.Policy{Sleep: func(context.Context, time.Duration) error { return nil }}

func newFake(t *testing.T) *gitlabfake.Server {
	t.Helper()
	f := gitlabfake.New(token, "perfbot-bot")
	t.Cleanup(f.Close)
	f.AddMR(gitlabfake.MR{Project: "acme/db/store", IID: 12, Title: "wal: batch fsync", SHA: sha})
	return f
}

func newClient(t *testing.T, f *gitlabfake.Server, cfg Config) *Client {
	t.Helper()
	cfg.BaseURL, cfg.Token, cfg.Retry = f.URL, token, quick
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPostEditsInPlace posts an answer to a merge request of a subgroup's
// project, then a rerun's: one note, edited in place, and the commit
// status moved from pending through running to failed, on the head commit.
func TestPostEditsInPlace(t *testing.T) {
	f := newFake(t)
	f.AddNote("acme/db/store", 12, "alice", "/perfbot run")
	p := newClient(t, f, Config{Login: "perfbot-bot", ServiceURL: "https://perf.example.org/"})
	ctx := context.Background()
	const key = "gitlab:acme/db/store!12/note/5"
	final := "**1 worse**\n\n<details><summary>all</summary>\n\n| a | b |\n|---|---|\n</details>\n\n[run](https://perf.example.org/runs/42)\n"
	msgs := []answer.Answer{
		msgOf(key, answer.StateQueued, "queued", "queued"),
		msgOf(key, answer.StatePending, "running", "running 1/3"),
		msgOf(key, answer.StatePending, "running", "running 2/3"),
		msgOf(key, answer.StateFailure, "1 worse", final),
	}
	var links []string
	for _, m := range msgs {
		link, err := p.Post(ctx, target.MustParse("gitlab:acme/db/store!12"), m)
		if err != nil {
			t.Fatal(err)
		}
		links = append(links, link)
	}
	notes := f.Notes("acme/db/store", 12)
	if len(notes) != 2 {
		t.Fatalf("%d notes, want the request and one answer: %+v", len(notes), notes)
	}
	want := Marker(key) + "\n" + final
	if notes[1].Body != want || notes[1].Author != "perfbot-bot" {
		t.Errorf("answer note = %q by %s, want %q", notes[1].Body, notes[1].Author, want)
	}
	wantLink := f.URL + "/acme/db/store/-/merge_requests/12#note_" + itoa(notes[1].ID)
	for _, l := range links {
		if l != wantLink {
			t.Errorf("link %q, want %q", l, wantLink)
		}
	}
	var states []string
	for _, s := range f.Statuses() {
		if s.SHA != sha || s.Name != "perfbot" {
			t.Errorf("status %+v not on the head commit or not named perfbot", s)
		}
		states = append(states, s.State)
	}
	// The second "running" is the state the status has: not set again.
	if got := strings.Join(states, " "); got != "pending running failed" {
		t.Errorf("states %q", got)
	}
	st := f.Statuses()
	if st[2].TargetURL != "https://perf.example.org/runs/42" || st[0].TargetURL != wantLink || st[2].Description != "1 worse" {
		t.Errorf("statuses %+v", st)
	}
	for _, r := range f.Requests() {
		if strings.Contains(r, "/projects/acme/") {
			t.Errorf("project path not URL-encoded: %s", r)
		}
	}
	if !contains(f.Requests(), "PUT /api/v4/projects/acme%2Fdb%2Fstore/merge_requests/12/notes/"+itoa(notes[1].ID)) {
		t.Errorf("no edit in place: %q", f.Requests())
	}
}

// TestPostFindsNoteOnLaterPage finds perfbot's note past the first page
// of notes, and leaves a copy of the marker in someone else's note alone.
func TestPostFindsNoteOnLaterPage(t *testing.T) {
	f := newFake(t)
	f.PerPage = 2
	key := "cli-abc"
	f.AddNote("acme/db/store", 12, "mallory", Marker(key)+"\nfake answer")
	for range 3 {
		f.AddNote("acme/db/store", 12, "bob", "lgtm")
	}
	p := newClient(t, f, Config{Login: "perfbot-bot"})
	for _, md := range []string{"first", "second"} {
		if _, err := p.Post(context.Background(), target.MustParse("gitlab:acme/db/store!12"), msgOf(key, "", "", md)); err != nil {
			t.Fatal(err)
		}
	}
	notes := f.Notes("acme/db/store", 12)
	if len(notes) != 5 || notes[0].Body != Marker(key)+"\nfake answer" || notes[4].Body != Marker(key)+"\nsecond" {
		t.Fatalf("notes %+v", notes)
	}
	if len(f.Statuses()) != 0 {
		t.Errorf("a message without a state set a status: %+v", f.Statuses())
	}
}

func TestPostErrors(t *testing.T) {
	f := newFake(t)
	p := newClient(t, f, Config{})
	ctx := context.Background()
	// A short form never filled in from config, or another venue's
	// target (target.Parse refuses malformed ones).
	for _, to := range []target.Target{target.MR("", 12), target.PR("acme/store", 12), {}} {
		if _, err := p.Post(ctx, to, msgOf("k", "", "", "")); err == nil || !strings.Contains(err.Error(), "GROUP/PROJECT!N") {
			t.Errorf("%+v: err = %v", to, err)
		}
	}
	if _, err := p.Post(ctx, target.MustParse("gitlab:acme/db/store!99"), msgOf("k", "", "", "")); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("missing merge request: err = %v", err)
	}
	bad, err := New(Config{BaseURL: f.URL, Token: "glpat-WRONG0123456789", Retry: quick})
	if err != nil {
		t.Fatal(err)
	}
	_, err = bad.Post(ctx, target.MustParse("gitlab:acme/db/store!12"), msgOf("k", "", "", "x"))
	if err == nil || !strings.Contains(err.Error(), "401") || strings.Contains(err.Error(), "WRONG") {
		t.Errorf("bad token: err = %v", err)
	}
	who, err := p.Check(ctx, "acme/db/store")
	if err != nil || who != "signed in as perfbot-bot; acme/db/store readable" {
		t.Errorf("Check = %q, %v", who, err)
	}
	if _, err := bad.Check(ctx, ""); err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("Check with a bad token: %v", err)
	}
}

func TestNoteBodyCut(t *testing.T) {
	long := "**3 worse**\n<details>\n\n```\n" + strings.Repeat("row\n", NoteLimit/4+10) + "```\n</details>\nsummary end\n"
	got := NoteBody(msgOf("k", "", "", long))
	if n := len([]rune(got)); n > NoteLimit {
		t.Fatalf("%d characters", n)
	}
	if !strings.HasPrefix(got, Marker("k")+"\n**3 worse**\n") || !strings.Contains(got, "lines left out to fit GitLab's note limit") ||
		!strings.HasSuffix(got, "```\n</details>\nsummary end\n") || !strings.Contains(got, "<details>\n\n```\nrow\n") {
		t.Errorf("cut body starts %q ends %q", got[:120], got[len(got)-80:])
	}
}

func contains(list []string, s string) bool {
	for _, l := range list {
		if l == s {
			return true
		}
	}
	return false
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestStatusRequeued: a job queued again while its status runs (a worker
// lost) posts pending, which GitLab refuses from running; the status
// stays running and the post succeeds, then the verdict lands.
func TestStatusRequeued(t *testing.T) {
	f := newFake(t)
	p := newClient(t, f, Config{})
	for _, st := range []answer.State{answer.StatePending, answer.StateQueued, answer.StateSuccess} {
		if _, err := p.Post(context.Background(), target.MustParse("gitlab:acme/db/store!12"), msgOf("k", st, string(st), string(st))); err != nil {
			t.Fatalf("%s: %v", st, err)
		}
	}
	var states []string
	for _, s := range f.Statuses() {
		states = append(states, s.State)
	}
	if got := strings.Join(states, " "); got != "running success" {
		t.Errorf("states %q", got)
	}
}

// msgOf is an answer with a Markdown rendering.
func msgOf(key string, state answer.State, summary, md string) answer.Answer {
	a := answer.Answer{Key: key, State: state, Summary: summary, Commit: sha}
	if md != "" {
		a.Set(Format, answer.Rendering{Full: md})
	}
	return a
}
