package jira

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/internal/storetest"
	rjira "github.com/perfbot/perfbot/venue/jira"
)

// TestFalseAlarmComment: "/perfbot false-alarm BENCH -- REASON" in a
// comment on a polled issue marks the verdict in the latest finished run
// answered to jira:KEY, in the store, by the comment's author, once
// however often and by however many pollers (a restart) it is read, and
// the acknowledgement is posted on the issue, escaped for wiki markup. A
// user the policy does not let have patches run is refused and marks
// nothing; perfbot's own comments, quoted lines and comments from before
// comments were first read are not commands.
func TestFalseAlarmComment(t *testing.T) {
	st := storetest.SQLite(t)
	ctx := context.Background()
	run := storetest.AnsweredRun(t, st, "jira", "STORE-1", "ci-1")
	now := time.Now()
	before := now.Add(-time.Second)
	is := rjira.Issue{Key: "STORE-1", Summary: "Faster scans", Comments: []rjira.Comment{
		{ID: "300", Author: "dev", Created: now.Add(-2 * time.Hour), Lines: []string{"/perfbot false-alarm Checksum -- long ago"}},
		{ID: "301", Author: "mallory", Created: now, Lines: []string{"/perfbot false-alarm Checksum"}},
		{ID: "302", Author: "perfbot", Own: true, Created: now, Lines: []string{"/perfbot false-alarm Checksum"}},
		{ID: "303", Author: "dev", Created: now, Lines: []string{"Agreed, the runner was busy.", "", "/perfbot false-alarm Checksum -- busy *runner* {color:red}x{color}"}},
	}}
	search := &fakeSearch{issues: []rjira.Issue{is}}
	poster := &fakePoster{}
	newPoller := func() *Poller {
		return &Poller{Search: search, Queue: &fakeQueue{}, Tested: st, Marks: st, Policy: &devOnly, Poster: poster,
			FalseAlarms: storetest.Marker{Store: st}, Now: func() time.Time { return now }}
	}
	p := newPoller()
	for range 2 {
		if n, err := p.Poll(ctx); n != 0 || err != nil {
			t.Fatalf("queued %d, %v", n, err)
		}
	}
	if n, err := newPoller().Poll(ctx); n != 0 || err != nil {
		t.Fatalf("after a restart: queued %d, %v", n, err)
	}
	marks, err := st.FalseAlarmsOfRun(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(marks) != 1 {
		t.Fatalf("marks %+v, want one, dev's", marks)
	}
	m := marks[0]
	if m.By != "dev" || m.Venue != "jira" || m.Host != "ci-1" || m.Key.Benchmark != "Checksum-2" || m.Verdict != "worse" ||
		m.Reason != "busy *runner* {color:red}x{color}" || m.At.Before(before) {
		t.Errorf("mark %+v", m)
	}
	if len(poster.msgs) != 2 {
		t.Fatalf("answers %+v, want mallory's refusal and dev's acknowledgement", poster.posts)
	}
	refusal, ack := poster.msgs[0], poster.msgs[1]
	if poster.posts[0].Where() != "STORE-1" || poster.posts[1].Where() != "STORE-1" || refusal.Key != "jira:STORE-1/comment/301/refused" ||
		!strings.Contains(refusal.Full(answer.Text), "mallory") {
		t.Errorf("refusal %q to %+v", refusal.Full(answer.Text), poster.posts[0])
	}
	wiki := ack.Full(answer.JIRAWiki)
	if ack.Key != "jira:STORE-1/comment/303/false-alarm" || !strings.Contains(wiki, "marked 1 verdict of run") || !strings.Contains(wiki, "\n* Checksum-2 ns/op (worse, &#43;30.0%) on host ci-1") {
		t.Errorf("acknowledgement %q", wiki)
	}
}

// TestCommentUsage: a command perfbot does not take on JIRA, or a
// malformed false-alarm, is answered once with what it does take.
func TestCommentUsage(t *testing.T) {
	st := storetest.SQLite(t)
	ctx := context.Background()
	search := &fakeSearch{issues: []rjira.Issue{{Key: "STORE-2", Comments: []rjira.Comment{
		{ID: "400", Author: "dev", Lines: []string{"/perfbot run"}},
		{ID: "401", Author: "dev", Lines: []string{"/perfbot false-alarm"}},
		{ID: "402", Author: "dev", Lines: []string{"/perfbot false-alarm {color:red}[evil|https://evil.example]"}},
	}}}}
	poster := &fakePoster{}
	p := &Poller{Search: search, Queue: &fakeQueue{}, Tested: st, Policy: &devOnly, Poster: poster}
	for range 2 {
		if _, err := p.Poll(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if len(poster.msgs) != 3 {
		t.Fatalf("answers %+v", poster.posts)
	}
	if s := poster.msgs[2].Full(answer.JIRAWiki); strings.ContainsAny(s, "{}[]|") || !strings.Contains(s, "&#123;color:red&#125;") {
		t.Errorf("untrusted text not escaped for wiki markup: %q", s)
	}
	if s := poster.msgs[0].Full(answer.Text); !strings.Contains(s, "/perfbot false-alarm BENCH... [-- REASON]") {
		t.Errorf("usage %q", s)
	}
	if s := poster.msgs[1].Full(answer.Text); !strings.Contains(s, "name the benchmarks to mark") {
		t.Errorf("answer to a malformed command %q", s)
	}
}
