package reviewboard

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/perfbot/perfbot/internal/fake/reviewboardfake"
)

// TestReviews: the published reviews of a review request, over more than
// a page, each followed by its published replies (perfbot's own review's
// too); drafts are left out, authors and times read from the answer, and
// perfbot's own writing is marked.
func TestReviews(t *testing.T) {
	f := newSite(t)
	at := time.Date(2026, 12, 1, 10, 30, 0, 0, time.UTC)
	for i := range 27 {
		f.Add(42, published(i+1, "bob", "Ship it!", "plain"))
	}
	f.Add(42, published(30, f.User, "[//]: # (perfbot:reviewboard:42/diff/1)\n\n**1 worse**", "markdown"))
	f.Add(42, reviewboardfake.Review{ID: 31, BodyTop: "draft", User: "carol"})
	f.Add(42, reviewboardfake.Review{ID: 32, BodyTop: "Looks slow.", BodyBottom: "/perfbot false-alarm Checksum", BodyBottomTextType: "markdown",
		Public: true, User: "carol", Timestamp: at})
	f.Add(42, reviewboardfake.Review{ID: 40, ReplyTo: 30, BodyTop: "/perfbot false-alarm Checksum -- busy runner", BodyTopTextType: "markdown",
		Public: true, User: "alice", Timestamp: at.Add(time.Minute)})
	f.Add(42, reviewboardfake.Review{ID: 41, ReplyTo: 30, BodyTop: "not yet", User: "alice"})
	var waits []time.Duration
	c := newClient(t, f, f.Token, &waits)
	got, err := c.Reviews(context.Background(), 42)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 30 {
		t.Fatalf("got %d reviews and replies, want 27 + 2 reviews and 1 reply", len(got))
	}
	var tail []string
	for _, r := range got[27:] {
		tail = append(tail, fmt.Sprintf("%d/%d %s own=%v %s %s|%s %s|%s", r.ID, r.ReplyTo, r.User, r.Own, r.Timestamp.Format(time.RFC3339),
			r.BodyTopTextType, r.BodyTop, r.BodyBottomTextType, r.BodyBottom))
	}
	want := []string{
		"30/0 perfbot own=true 2026-11-30T09:00:00Z markdown|[//]: # (perfbot:reviewboard:42/diff/1)\n\n**1 worse** plain|",
		"40/30 alice own=false 2026-12-01T10:31:00Z markdown|/perfbot false-alarm Checksum -- busy runner plain|",
		"32/0 carol own=false 2026-12-01T10:30:00Z plain|Looks slow. markdown|/perfbot false-alarm Checksum",
	}
	if strings.Join(tail, "\n") != strings.Join(want, "\n") {
		t.Errorf("reviews:\n%s\nwant:\n%s", strings.Join(tail, "\n"), strings.Join(want, "\n"))
	}
	if got[0].User != "bob" || got[0].Own || got[0].ReplyTo != 0 {
		t.Errorf("first review %+v", got[0])
	}
}

// TestParseTime: a timestamp that is not a time is an error
// naming what was expected, not a zero time.
func TestParseTime(t *testing.T) {
	for in, want := range map[string]string{
		"2026-11-30T09:00:00Z":          "2026-11-30T09:00:00Z",
		"2026-11-30T09:00:00.524+01:00": "2026-11-30T08:00:00.524Z",
		"2026-11-30T09:00:00":           "2026-11-30T09:00:00Z",
		"2026-11-30 09:00:00":           "2026-11-30T09:00:00Z",
	} {
		got, err := parseTime(in)
		if err != nil || got.UTC().Format(time.RFC3339Nano) != want {
			t.Errorf("parseTime(%q) = %v, %v; want %s", in, got, err, want)
		}
	}
	if _, err := parseTime("yesterday"); err == nil || !strings.Contains(err.Error(), "want an ISO 8601 time") {
		t.Errorf("parseTime(yesterday): %v", err)
	}
}
