package reviewboard

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/internal/storetest"
	"github.com/perfbot/perfbot/trigger"
	rrb "github.com/perfbot/perfbot/venue/reviewboard"
)

// TestFalseAlarmReview: "/perfbot false-alarm BENCH -- REASON" in a reply
// to perfbot's review marks the verdict in the latest finished run
// answered on that review request, in the store, by the reply's author,
// once across polls and a restart; a user who may not start runs is
// refused and marks nothing; a malformed command gets the usage once;
// perfbot's own reviews, commands in code and commands from before perfbot
// read reviews are not obeyed.
func TestFalseAlarmReview(t *testing.T) {
	st := storetest.SQLite(t)
	ctx := context.Background()
	run := storetest.AnsweredRun(t, st, "reviewboard", "42", "ci-1")
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	t0 := time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC)
	list := &fakeList{reqs: []rrb.Request{{ID: 42, Summary: "Faster scans", DiffRevision: 1, Submitter: "dev", LastUpdated: t0}},
		reviews: map[int][]rrb.Review{42: {
			{ID: 7, User: "perfbot", Own: true, Timestamp: now.Add(-2 * time.Minute), BodyTopTextType: "markdown",
				BodyTop: "[//]: # (perfbot:reviewboard:42/diff/1)\n\n/perfbot false-alarm Checksum-2"},
			{ID: 8, ReplyTo: 7, User: "alice", Timestamp: now.Add(-3 * time.Hour), BodyTopTextType: "plain",
				BodyTop: "/perfbot false-alarm Append-2 -- before perfbot read reviews"},
			{ID: 9, ReplyTo: 7, User: "alice", Timestamp: now.Add(-time.Minute), BodyTopTextType: "markdown",
				BodyTop: "As the docs say:\n\n```\n/perfbot false-alarm Append-2\n```\n\n> /perfbot false-alarm Append-2\n\n/perfbot false-alarm Checksum-2 -- the runner was busy"},
			{ID: 10, User: "mallory", Timestamp: now.Add(-time.Minute), BodyTopTextType: "plain", BodyTop: "Hmm.",
				BodyBottomTextType: "plain", BodyBottom: "/perfbot false-alarm Checksum-2"},
			{ID: 11, User: "carol", Timestamp: now.Add(-time.Minute), BodyTopTextType: "markdown", BodyTop: "/perfbot rerun"},
		}}}
	q, poster := &fakeQueue{}, &fakePoster{}
	var logs bytes.Buffer
	poller := func() *Poller {
		return &Poller{List: list, Diffs: list, Reviews: list, Queue: q, Tested: st, Marks: st, FalseAlarms: storetest.Marker{Store: st},
			Repository: "3", Policy: &trigger.Policy{AllowUsers: []string{"reviewboard:dev", "reviewboard:alice"}, RequireWrite: true},
			Poster: poster, Log: slog.New(slog.NewTextHandler(&logs, nil)), Now: func() time.Time { return now }}
	}
	p := poller()
	for range 2 {
		if _, err := p.Poll(ctx); err != nil {
			t.Fatal(err)
		}
	}
	// A restart: a new poller lists every request again and reads its
	// reviews from the start.
	now = now.Add(time.Hour)
	if _, err := poller().Poll(ctx); err != nil {
		t.Fatal(err)
	}
	if len(list.read) != 3 || len(q.jobs) != 1 {
		t.Errorf("reviews read %v, jobs %d: want r/42 read on each poll, its diff queued once", list.read, len(q.jobs))
	}
	marks, err := st.FalseAlarmsOfRun(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(marks) != 1 {
		t.Fatalf("marks %+v, want one, alice's", marks)
	}
	m := marks[0]
	if m.By != "alice" || m.Venue != "reviewboard" || m.Host != "ci-1" || m.Key.Benchmark != "Checksum-2" || m.Verdict != "worse" ||
		m.Reason != "the runner was busy" {
		t.Errorf("mark %+v", m)
	}
	var keys []string
	for _, a := range poster.posts {
		keys = append(keys, a.Key)
	}
	want := "reviewboard:42/review/9/false-alarm reviewboard:42/review/10/false-alarm reviewboard:42/review/11/usage"
	if strings.Join(keys, " ") != want {
		t.Fatalf("answers %q, want %q", keys, want)
	}
	if ack := poster.posts[0].Full(answer.Text); !strings.Contains(ack, "marked 1 verdict of run") || !strings.Contains(ack, "Checksum-2 ns/op (worse, +30.0%) on host ci-1") {
		t.Errorf("acknowledgement:\n%s", ack)
	}
	// Review Board's rendering is escaped, as every answer posted there.
	if ack := poster.posts[0].Full(answer.MarkdownRB); !strings.Contains(ack, `Checksum\-2 ns/op \(worse, \+30\.0%\)`) {
		t.Errorf("acknowledgement in Review Board Markdown:\n%s", ack)
	}
	if refusal := poster.posts[1].Full(answer.Text); !strings.Contains(refusal, "mallory") {
		t.Errorf("refusal:\n%s", refusal)
	}
	if usage := poster.posts[2].Full(answer.Text); !strings.Contains(usage, "/perfbot false-alarm BENCH... [-- REASON]") {
		t.Errorf("usage:\n%s", usage)
	}
	for _, line := range []string{
		`msg="false alarm marked" review_request=42 review=9 user=alice benchmarks=[Checksum-2]`,
		`msg="false alarm refused" review_request=42 review=10 user=mallory reason="Review Board user mallory is not in the trigger allow list"`,
	} {
		if !strings.Contains(logs.String(), line) {
			t.Errorf("log lacks %s:\n%s", line, logs.String())
		}
	}
	if from, err := st.ScheduleLast(ctx, commandsMark); err != nil || !from.Equal(time.Date(2026, 12, 1, 11, 0, 0, 0, time.UTC)) {
		t.Errorf("commands obeyed from %v, %v; want an hour before the first poll, kept across the restart", from, err)
	}
}

// TestFalseAlarmNoRun: a mark on a review request with no finished run is
// answered with why nothing was marked, and stores nothing.
func TestFalseAlarmNoRun(t *testing.T) {
	st := storetest.SQLite(t)
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	list := &fakeList{reqs: []rrb.Request{{ID: 43, Summary: "x", Submitter: "dev"}},
		reviews: map[int][]rrb.Review{43: {{ID: 5, User: "dev", Timestamp: now, BodyTopTextType: "plain", BodyTop: "/perfbot false-alarm Checksum-2"}}}}
	poster := &fakePoster{}
	p := &Poller{List: list, Diffs: list, Reviews: list, Queue: &fakeQueue{}, Tested: st, Marks: st, FalseAlarms: storetest.Marker{Store: st},
		Repository: "3", Policy: &trigger.Policy{AllowUsers: []string{"reviewboard:dev"}, RequireWrite: true}, Poster: poster,
		Now: func() time.Time { return now }}
	if _, err := p.Poll(context.Background()); err != nil {
		t.Fatal(err)
	}
	marks, err := st.FalseAlarms(context.Background(), 0)
	if err != nil || len(marks) != 0 {
		t.Errorf("marks %+v, %v: want none", marks, err)
	}
	if len(poster.posts) != 1 || !strings.Contains(poster.posts[0].Full(answer.Text), "there is no finished benchmark run here to mark") {
		t.Errorf("answers %+v", poster.posts)
	}
}
