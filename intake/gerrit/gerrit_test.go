package gerrit

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/internal/fake/gerritfake"
	"github.com/perfbot/perfbot/internal/storetest"
	"github.com/perfbot/perfbot/job/jobspec"
	"github.com/perfbot/perfbot/store"
	"github.com/perfbot/perfbot/target"
	"github.com/perfbot/perfbot/trigger"
	rg "github.com/perfbot/perfbot/venue/gerrit"
)

const patch = "From 1111 Mon Sep 17 00:00:00 2001\nSubject: [PATCH] wal: batch fsync\n\n---\ndiff --git a/wal.go b/wal.go\n--- a/wal.go\n+++ b/wal.go\n@@ -1 +1 @@\n-a\n+b\n"

var (
	alice   = gerritfake.Account{ID: 1001, Username: "alice", Email: "alice@example.org"}
	mallory = gerritfake.Account{ID: 1666, Username: "mallory"}
	carol   = gerritfake.Account{ID: 1003, Username: "carol"}
)

type fakeQueue struct{ jobs []jobspec.Spec }

func (q *fakeQueue) Enqueue(ctx context.Context, spec jobspec.Spec) (int64, bool, error) {
	for _, j := range q.jobs {
		if j.Key == spec.Key {
			return 0, true, nil
		}
	}
	q.jobs = append(q.jobs, spec)
	return int64(len(q.jobs)), false, nil
}

// clientPoster posts refusals through the Gerrit client, as the router
// does in the service.
type clientPoster struct{ c *rg.Client }

func (p clientPoster) Post(ctx context.Context, to target.Target, msg answer.Answer) (string, error) {
	return p.c.Post(ctx, to, msg)
}

type site struct {
	f  *gerritfake.Server
	c  *rg.Client
	st *store.Store
	q  *fakeQueue
}

func newSite(t *testing.T) *site {
	f := gerritfake.New(t)
	c, err := rg.New(rg.Config{BaseURL: f.URL, User: f.User, Password: f.Password})
	if err != nil {
		t.Fatal(err)
	}
	f.AddChange(gerritfake.Change{Number: 1234, Project: "store", Branch: "main", ChangeID: "I8473b95934b5732ac55d26311a706c9c2bde9940",
		Subject: "wal: batch fsync", Owner: alice})
	f.AddPatchSet(1234, gerritfake.PatchSet{SHA: "aaaa111122223333444455556666777788889999", Uploader: alice, Patch: patch})
	f.Groups["perf-team"] = []int{}
	return &site{f: f, c: c, st: storetest.SQLite(t), q: &fakeQueue{}}
}

// poller is a fresh poller on the site's store, as after a restart.
func (s *site) poller(patchSets, commands bool) *Poller {
	policy := trigger.Policy{RequireWrite: true, ListedOnly: true, AllowUsers: []string{"gerrit:alice"}}
	return &Poller{Gerrit: s.c, Queue: s.q, Tested: s.st, Marks: s.st, Query: "status:open project:store",
		PatchSets: patchSets, Commands: commands, Group: "perf-team", Policy: &policy,
		Poster: clientPoster{s.c}, Now: s.f.Now}
}

func poll(t *testing.T, p *Poller) int {
	t.Helper()
	n, err := p.Poll(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestNewPatchSets: each new patch set of an allowed uploader is queued
// once, with its patch, across polls and a restart.
func TestNewPatchSets(t *testing.T) {
	s := newSite(t)
	p := s.poller(true, true)
	if n := poll(t, p); n != 1 {
		t.Fatalf("first poll queued %d, want 1", n)
	}
	j := s.q.jobs[0]
	if j.Key != "gerrit:1234/1" || j.Targets[0].String() != "gerrit:1234/1" || j.Patch != patch || j.Requester != "alice" || j.Source != "gerrit" {
		t.Errorf("job %+v", j)
	}
	s.f.Tick(time.Minute)
	if n := poll(t, p); n != 0 {
		t.Fatalf("second poll queued %d, want 0", n)
	}
	s.f.Tick(time.Minute)
	s.f.AddPatchSet(1234, gerritfake.PatchSet{SHA: "bbbb111122223333444455556666777788889999", Uploader: alice, Patch: patch})
	// A restart: a new poller reads the mark from the store.
	p = s.poller(true, true)
	if n := poll(t, p); n != 1 || s.q.jobs[1].Key != "gerrit:1234/2" {
		t.Fatalf("after patch set 2: queued %d, jobs %v", len(s.q.jobs), s.q.jobs)
	}
	qs := s.f.Queries()
	if qs[0] != "(status:open project:store)" || !strings.HasPrefix(qs[len(qs)-1], `(status:open project:store) since:"2026-12-01 09:00:00 +0000"`) {
		t.Errorf("queries %q", qs)
	}
	if n := len(s.f.ByPerfbot(1234)); n != 0 {
		t.Errorf("perfbot posted %d messages on queued patch sets", n)
	}
}

// TestCommands: "/perfbot run" from a user without permission is refused
// once, on the change; from a group member it queues the patch set the
// comment is on; a malformed one gets the usage once.
func TestCommands(t *testing.T) {
	s := newSite(t)
	s.f.Groups["perf-team"] = []int{carol.ID}
	p := s.poller(false, true)
	s.f.Tick(time.Minute)
	s.f.Comment(1234, 1, mallory, "/perfbot run")
	if n := poll(t, p); n != 0 {
		t.Fatalf("mallory's command queued %d jobs", n)
	}
	got := s.f.ByPerfbot(1234)
	if len(got) != 1 || !strings.Contains(got[0].Message, "mallory") || !strings.Contains(got[0].Message, "tracker_users") || got[0].Tag != rg.Tag {
		t.Fatalf("refusal: %+v", got)
	}
	// Read again, and once more after a restart: no second refusal.
	poll(t, p)
	poll(t, s.poller(false, true))
	if n := len(s.f.ByPerfbot(1234)); n != 1 {
		t.Fatalf("%d refusals, want 1", n)
	}
	s.f.Tick(time.Minute)
	s.f.Comment(1234, 1, carol, "Looks plausible.\n\n/perfbot run\n")
	s.f.Comment(1234, 1, carol, "> /perfbot run\nquoted, not a command")
	s.f.Comment(1234, 1, alice, "/perfbot please")
	if n := poll(t, p); n != 1 {
		t.Fatalf("carol's command queued %d, want 1", n)
	}
	j := s.q.jobs[0]
	if !strings.HasPrefix(j.Key, "gerrit:1234/1/message/") || j.Targets[0].String() != "gerrit:1234/1" || j.Requester != "carol" || j.Patch != patch {
		t.Errorf("job %+v", j)
	}
	got = s.f.ByPerfbot(1234)
	if len(got) != 2 || !strings.Contains(got[1].Message, `"/perfbot run`) {
		t.Fatalf("usage: %+v", got)
	}
	poll(t, p)
	if len(s.q.jobs) != 1 || len(s.f.ByPerfbot(1234)) != 2 {
		t.Errorf("a second poll acted again: %d jobs, %d messages", len(s.q.jobs), len(s.f.ByPerfbot(1234)))
	}
}

// TestSameCode: a patch set that only edits the commit message is not run
// again, unless asked.
func TestSameCode(t *testing.T) {
	s := newSite(t)
	p := s.poller(true, true)
	poll(t, p)
	s.f.Tick(time.Minute)
	s.f.AddPatchSet(1234, gerritfake.PatchSet{SHA: "bbbb111122223333444455556666777788889999", Uploader: alice, Patch: patch, Kind: "NO_CODE_CHANGE"})
	if n := poll(t, p); n != 0 {
		t.Errorf("a message-only patch set queued %d", n)
	}
	s.f.Tick(time.Minute)
	s.f.Comment(1234, 2, alice, "/perfbot run")
	if n := poll(t, p); n != 1 || !strings.HasPrefix(s.q.jobs[1].Key, "gerrit:1234/2/message/") {
		t.Errorf("asked for: queued %d, jobs %v", n, s.q.jobs)
	}
}

// TestPatchSetRefused: a patch set uploaded by someone not allowed is
// refused on the change once, and not queued.
func TestPatchSetRefused(t *testing.T) {
	s := newSite(t)
	s.f.Tick(time.Minute)
	s.f.AddPatchSet(1234, gerritfake.PatchSet{SHA: "bbbb111122223333444455556666777788889999", Uploader: mallory, Patch: patch})
	p := s.poller(true, false)
	if n := poll(t, p); n != 0 {
		t.Fatalf("queued %d", n)
	}
	poll(t, p)
	if got := s.f.ByPerfbot(1234); len(got) != 1 || got[0].Revision != 2 {
		t.Errorf("refusals %+v", got)
	}
}

// TestNotAPatch: a patch set whose patch is not one is skipped, never
// answered.
func TestNotAPatch(t *testing.T) {
	s := newSite(t)
	s.f.Tick(time.Minute)
	s.f.AddPatchSet(1234, gerritfake.PatchSet{SHA: "bbbb111122223333444455556666777788889999", Uploader: alice, Patch: "<html>Sign in</html>"})
	if n := poll(t, s.poller(true, false)); n != 0 || len(s.f.ByPerfbot(1234)) != 0 {
		t.Errorf("queued %d, messages %d", n, len(s.f.ByPerfbot(1234)))
	}
}

// TestOldCommands: on the first poll, commands older than an hour are
// ignored, also by later polls whose mark is older than them.
func TestOldCommands(t *testing.T) {
	s := newSite(t)
	s.f.Comment(1234, 1, alice, "/perfbot run")
	p := s.poller(false, true)
	p.Now = func() time.Time { return s.f.Now().Add(2 * time.Hour) }
	poll(t, p)
	poll(t, p)
	if len(s.q.jobs) != 0 {
		t.Errorf("an old command was obeyed: %v", s.q.jobs)
	}
	s.f.Tick(3 * time.Hour)
	s.f.Comment(1234, 1, alice, "/perfbot run")
	if n := poll(t, p); n != 1 {
		t.Errorf("a new command queued %d", n)
	}
}

func TestParseCommand(t *testing.T) {
	for in, want := range map[string]string{
		"Patch Set 3:\n\n/perfbot run":                    "run",
		"Patch Set 3: Code-Review+1\n\n/perfbot  run  \n": "run",
		"/perfbot run wal base=main":                      "run wal base=main",
		"/perfbot false-alarm Checksum -- busy":           "false-alarm Checksum -- busy",
		"/perfbot run $(x)":                               "error",
		"/perfbot please":                                 "error",
		"/perfbot":                                        "error",
		"/perfbotrun":                                     "none",
		"> /perfbot run":                                  "none",
		"please /perfbot run":                             "none",
		"":                                                "none",
	} {
		cmd, ok, err := ParseCommand(in)
		got := cmd.Verb + strings.Join(append([]string{""}, cmd.Suites...), " ")
		if cmd.Base != "" {
			got += " base=" + cmd.Base
		}
		if len(cmd.Benches) > 0 {
			got += strings.Join(append([]string{""}, cmd.Benches...), " ") + " -- " + cmd.Reason
		}
		switch {
		case !ok:
			got = "none"
		case err != nil:
			got = "error"
		}
		if got != want {
			t.Errorf("ParseCommand(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzParseCommand(f *testing.F) {
	f.Add("Patch Set 3:\n\n/perfbot run")
	f.Add("> /perfbot run\n/perfbot x")
	f.Add("/perfbot false-alarm A/b=1 -- why")
	f.Fuzz(func(t *testing.T, s string) {
		cmd, ok, err := ParseCommand(s)
		if ok && err == nil && !strings.Contains(s, "/perfbot") {
			t.Errorf("%q is a command without /perfbot", s)
		}
		for _, a := range append(append(cmd.Suites, cmd.Base), cmd.Benches...) {
			if strings.ContainsAny(a, " \t\n$`;|&'\"") || strings.HasPrefix(a, "-") {
				t.Fatalf("unsafe name %q from %q", a, s)
			}
		}
	})
}

// TestFalseAlarmComment: "/perfbot false-alarm BENCH -- REASON" in a change
// message marks the verdict in the latest finished run of that patch set,
// in the store, by the message's author, once however often it is read; a
// user who may not start runs is refused and marks nothing.
func TestFalseAlarmComment(t *testing.T) {
	s := newSite(t)
	run := storetest.AnsweredRun(t, s.st, "gerrit", "1234/1", "ci-1")
	p := s.poller(false, true)
	p.FalseAlarms = storetest.Marker{Store: s.st}
	s.f.Tick(time.Minute)
	before := time.Now().Add(-time.Second)
	s.f.Comment(1234, 1, mallory, "/perfbot false-alarm Checksum")
	s.f.Comment(1234, 1, alice, "Patch Set 1:\n\n/perfbot false-alarm Checksum -- the runner was busy")
	if n := poll(t, p); n != 0 {
		t.Fatalf("marks queued %d jobs", n)
	}
	poll(t, p)
	poll(t, s.poller(false, true))
	marks, err := s.st.FalseAlarmsOfRun(context.Background(), run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(marks) != 1 {
		t.Fatalf("marks %+v, want one, alice's", marks)
	}
	m := marks[0]
	if m.By != "alice" || m.Venue != "gerrit" || m.Host != "ci-1" || m.Key.Benchmark != "Checksum-2" || m.Verdict != "worse" ||
		m.Reason != "the runner was busy" || m.At.Before(before) {
		t.Errorf("mark %+v", m)
	}
	got := s.f.ByPerfbot(1234)
	if len(got) != 2 || !strings.Contains(got[0].Message, "mallory") || !strings.Contains(got[1].Message, "marked 1 verdict of run") ||
		!strings.Contains(got[1].Message, "Checksum-2") {
		t.Fatalf("answers: %+v", got)
	}
}
