package reviewboard

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/internal/fake/reviewboardfake"
	"github.com/perfbot/perfbot/target"
	"github.com/perfbot/perfbot/venue"
	"github.com/perfbot/perfbot/venue/retry"
)

func newClient(t *testing.T, f *reviewboardfake.Server, token string, waits *[]time.Duration) *Client {
	t.Helper()
	c, err := New(Config{BaseURL: f.URL, Token: token, Retry: retry.Policy{Attempts: 8, Sleep: func(ctx context.Context, d time.Duration) error {
		*waits = append(*waits, d)
		return ctx.Err()
	}}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func msg(key, md string) answer.Answer {
	return answer.Answer{Key: key, Summary: "1 better", Renderings: map[answer.Format]answer.Rendering{answer.MarkdownGFM: {Full: md}}}
}

func TestPostCreatesThenRerun(t *testing.T) {
	f := newSite(t)
	for i := range 30 { // a page and more of others' reviews
		f.Add(42, published(i+1, "bob", "Ship it!", "plain"))
	}
	var waits []time.Duration
	c := newClient(t, f, f.Token, &waits)
	ctx := context.Background()
	link, err := c.Post(ctx, target.MustParse("reviewboard:42"), msg("job-1", "| Threads | Diff |\n|---|---|\n| 10 | 3.7x |\n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := f.URL + "r/42/#review101"; link != want {
		t.Errorf("link %q, want %q", link, want)
	}
	reviews := f.Reviews(42, "")
	last := reviews[len(reviews)-1]
	if !last.Public || last.User != f.User || last.BodyTopTextType != "markdown" || last.ExtraData["perfbot_key"] != "job-1" || !strings.HasPrefix(last.BodyTop, "[//]: # (perfbot:job-1)\n\n| Threads") {
		t.Errorf("review %+v", last)
	}
	// Same text again (a retry): nothing new.
	if l, err := c.Post(ctx, target.MustParse("reviewboard:42"), msg("job-1", "| Threads | Diff |\n|---|---|\n| 10 | 3.7x |\n")); err != nil || l != link {
		t.Fatalf("retry: %q, %v", l, err)
	}
	// New text (a rerun): a new published review, the old one untouched.
	l2, err := c.Post(ctx, target.MustParse("reviewboard:42"), msg("job-1", "rerun\n"))
	if err != nil {
		t.Fatal(err)
	}
	reviews = f.Reviews(42, "")
	if len(reviews) != 32 || !strings.HasSuffix(reviews[31].BodyTop, "\n\nrerun\n") || !reviews[31].Public || l2 == link {
		t.Fatalf("%d reviews, last %+v, link %q: want a second published review", len(reviews), reviews[len(reviews)-1], l2)
	}
	// Its retry finds the latest review and adds nothing.
	if _, err := c.Post(ctx, target.MustParse("reviewboard:42"), msg("job-1", "rerun\n")); err != nil || len(f.Reviews(42, "")) != 32 {
		t.Errorf("retry of rerun: %d reviews, %v", len(f.Reviews(42, "")), err)
	}
	for _, r := range f.Requests() {
		if strings.HasPrefix(r, "PUT ") {
			t.Errorf("%s: a published review was edited", r)
		}
	}
}

func TestPostRidesOutStorm(t *testing.T) {
	f := newSite(t)
	f.Fail(502, 429, 503, 502, 504)
	var waits []time.Duration
	c := newClient(t, f, f.Token, &waits)
	if _, err := c.Post(context.Background(), target.MustParse("reviewboard:42"), msg("k", "x")); err != nil {
		t.Fatal(err)
	}
	if n := len(f.Reviews(42, "")); n != 1 || len(waits) != 5 || waits[1] != 4*time.Second {
		t.Errorf("%d reviews, waits %v", n, waits)
	}
}

func TestPostFailsFast(t *testing.T) {
	tests := []struct {
		name, token, where string
		fail               []int
		want               string
	}{
		{"401", "rbtok_wrong_wrong_wrong", "42", nil, "401 Unauthorized: You are not logged in"},
		{"404 request", "", "99", nil, "404 Not Found: Object does not exist (code 100)"},
		{"404 injected", "", "42", []int{404}, "404 Not Found"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newSite(t)
			f.EchoAuth()
			f.Fail(tc.fail...)
			tok := tc.token
			if tok == "" {
				tok = f.Token
			}
			var waits []time.Duration
			c := newClient(t, f, tok, &waits)
			_, err := c.Post(context.Background(), target.MustParse("reviewboard:"+tc.where), msg("k", "x"))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			// Asking who perfbot is (GET /api/session/) may come first.
			reqs := f.Requests()
			if n := len(reqs); n == 0 || n > 2 || n == 2 && reqs[0] != "GET /rb/api/session/" || len(waits) != 0 {
				t.Errorf("requests %v: want the failing one once, no retry", reqs)
			}
			if strings.Contains(err.Error(), tok) {
				t.Errorf("token in error: %v", err)
			}
		})
	}
}

func TestListRequests(t *testing.T) {
	f := newSite(t)
	var waits []time.Duration
	c := newClient(t, f, f.Token, &waits)
	got, err := c.ListRequests(context.Background(), "3", "", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 30 || got[29].ID != 71 || got[0].DiffRevision != 3 || got[0].Submitter != "alice" || !got[0].LastUpdated.Equal(updated(0)) {
		t.Errorf("%d requests, first %+v", len(got), got[0])
	}
	// Since a time: only the requests updated then or later, and only
	// their diffs are listed.
	before := len(f.Requests())
	got, err = c.ListRequests(context.Background(), "3", "", updated(27))
	if err != nil {
		t.Fatal(err)
	}
	if calls := f.Requests()[before:]; len(got) != 3 || got[0].ID != 69 || len(calls) != 4 || !strings.Contains(calls[0], "/api/review-requests/") {
		t.Errorf("since: %d requests (%+v), %d calls %v; want 3 and 4", len(got), got, len(calls), calls)
	}
}

// TestDiff fetches a revision through the API's diff resource as a patch;
// the web page (/r/ID/diff/REV/raw/) is a login redirect on this site and
// is never asked for; an answer that is not a patch is refused.
func TestDiff(t *testing.T) {
	f := newSite(t)
	var waits []time.Duration
	c := newClient(t, f, f.Token, &waits)
	got, err := c.Diff(context.Background(), 42, 2)
	if err != nil || got != fakePatch {
		t.Fatalf("Diff = %q, %v", got, err)
	}
	if reqs := f.Requests(); reqs[0] != "GET /rb/api/review-requests/42/diffs/2/" {
		t.Errorf("requests %v", reqs)
	}
	f.ServeDiffHTML(true)
	_, err = c.Diff(context.Background(), 42, 2)
	var np *NotPatchError
	if !errors.As(err, &np) || !strings.Contains(err.Error(), `Content-Type "text/html; charset=utf-8"`) {
		t.Errorf("HTML answer: %v", err)
	}
	// Pointed at the web page, as perfbot once was: a redirect, refused.
	c2 := newClient(t, f, f.Token, &waits)
	c2.base.Path = "/rb/r/" // the diff resolves to a web page
	if _, err := c2.Diff(context.Background(), 42, 2); !errors.As(err, &np) || !strings.Contains(err.Error(), "redirected") {
		t.Errorf("login redirect: %v", err)
	}
	for _, tc := range []struct{ text, why string }{
		{"", "empty"},
		{"<!DOCTYPE html><html>", "HTML"},
		{"just some text\n", "file header"},
		{"--- a/x\n+++ b/x\n", "hunk"},
		{fakePatch, ""},
		{"diff --git a/p.png b/p.png\nindex 1..2\nBinary files a/p.png and b/p.png differ\n", ""},
	} {
		if got := venue.NotPatch(tc.text); (tc.why == "") != (got == "") || !strings.Contains(got, tc.why) {
			t.Errorf("venue.NotPatch(%q) = %q, want %q", tc.text, got, tc.why)
		}
	}
}

func TestConfigAndTarget(t *testing.T) {
	for _, cfg := range []Config{{}, {BaseURL: "reviews.example.org", Token: "t"}, {BaseURL: "https://r.example.org"}} {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%+v) succeeded", cfg)
		}
	}
	c, _ := New(Config{BaseURL: "https://r.example.org", Token: "t"})
	// target.Parse refuses malformed numbers; another venue's target is refused here.
	for _, to := range []target.Target{target.Issue("STORE-1"), {}} {
		if _, err := c.Post(context.Background(), to, msg("k", "x")); err == nil {
			t.Errorf("target %+v accepted", to)
		}
	}
	if _, err := c.resolve("https://evil.example.com/api/"); err == nil {
		t.Error("a link off the site was followed")
	}
}
