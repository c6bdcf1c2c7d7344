package reviewboard

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/perfbot/perfbot/review"
	"github.com/perfbot/perfbot/review/retry"
)

func newClient(t *testing.T, f *fakeRB, token string, waits *[]time.Duration) *Client {
	t.Helper()
	c, err := New(Config{BaseURL: f.url(), Token: token, Retry: retry.Policy{Attempts: 8, Sleep: func(ctx context.Context, d time.Duration) error {
		*waits = append(*waits, d)
		return ctx.Err()
	}}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func msg(key, md string) review.Message {
	return review.Message{Key: key, Markdown: md, Summary: "1 better"}
}

func TestPostCreatesThenRerun(t *testing.T) {
	for _, mutable := range []bool{false, true} {
		f := newFakeRB(t)
		f.mutable = mutable
		for i := range 30 { // a page and more of others' reviews
			f.reviews = append(f.reviews, fakeReview{ID: i + 1, BodyTop: "Ship it!", TextType: "plain", Public: true})
		}
		var waits []time.Duration
		c := newClient(t, f, f.token, &waits)
		ctx := context.Background()
		link, err := c.Post(ctx, "42", msg("job-1", "| Threads | Diff |\n|---|---|\n| 10 | 3.7x |\n"))
		if err != nil {
			t.Fatal(err)
		}
		if want := f.url() + "r/42/#review101"; link != want {
			t.Errorf("link %q, want %q", link, want)
		}
		last := f.reviews[len(f.reviews)-1]
		if !last.Public || last.TextType != "markdown" || last.ExtraData["perfbot_key"] != "job-1" || !strings.HasPrefix(last.BodyTop, "[//]: # (perfbot:job-1)\n\n| Threads") {
			t.Errorf("review %+v", last)
		}
		// Same text again: nothing new.
		if l, err := c.Post(ctx, "42", msg("job-1", "| Threads | Diff |\n|---|---|\n| 10 | 3.7x |\n")); err != nil || l != link {
			t.Fatalf("retry: %q, %v", l, err)
		}
		// New text: an edit where Review Board allows it, a reply where not.
		l2, err := c.Post(ctx, "42", msg("job-1", "rerun\n"))
		if err != nil {
			t.Fatal(err)
		}
		if len(f.reviews) != 31 {
			t.Fatalf("mutable=%v: %d reviews, want 31 (no duplicate)", mutable, len(f.reviews))
		}
		if mutable {
			if !strings.HasSuffix(f.reviews[30].BodyTop, "\n\nrerun\n") || l2 != link {
				t.Errorf("not edited: %+v %q", f.reviews[30], l2)
			}
		} else {
			rs := f.replies[101]
			if len(rs) != 1 || !strings.HasSuffix(rs[0].BodyTop, "rerun\n") || rs[0].TextType != "markdown" || !rs[0].Public {
				t.Errorf("replies %+v", rs)
			}
			// A retry of the reply does not reply twice.
			if _, err := c.Post(ctx, "42", msg("job-1", "rerun\n")); err != nil || len(f.replies[101]) != 1 {
				t.Errorf("retry of reply: %d replies, %v", len(f.replies[101]), err)
			}
		}
	}
}

func TestPostRidesOutStorm(t *testing.T) {
	f := newFakeRB(t)
	f.fail = []int{502, 429, 503, 502, 504}
	var waits []time.Duration
	c := newClient(t, f, f.token, &waits)
	if _, err := c.Post(context.Background(), "42", msg("k", "x")); err != nil {
		t.Fatal(err)
	}
	if len(f.reviews) != 1 || len(waits) != 5 || waits[1] != 4*time.Second {
		t.Errorf("%d reviews, waits %v", len(f.reviews), waits)
	}
}

func TestPostFailsFast(t *testing.T) {
	tests := []struct {
		name, token, where string
		fail               []int
		want               string
	}{
		{"401", "rbtok_wrong_wrong_wrong", "42", nil, "401 Unauthorized: You are not logged in"},
		{"404 request", "", "43", nil, "404 Not Found: Object does not exist (code 100)"},
		{"404 injected", "", "42", []int{404}, "404 Not Found"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeRB(t)
			f.echoAuth = true
			f.fail = tc.fail
			tok := tc.token
			if tok == "" {
				tok = f.token
			}
			var waits []time.Duration
			c := newClient(t, f, tok, &waits)
			_, err := c.Post(context.Background(), tc.where, msg("k", "x"))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if len(f.requests) != 1 || len(waits) != 0 {
				t.Errorf("requests %v: want one, no retry", f.requests)
			}
			if strings.Contains(err.Error(), tok) {
				t.Errorf("token in error: %v", err)
			}
		})
	}
}

func TestListRequests(t *testing.T) {
	f := newFakeRB(t)
	var waits []time.Duration
	c := newClient(t, f, f.token, &waits)
	got, err := c.ListRequests(context.Background(), "3", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 30 || got[29].ID != 71 || got[0].DiffRevision != 3 || got[0].Submitter != "alice" || got[0].LastUpdated.IsZero() {
		t.Errorf("%d requests, first %+v", len(got), got[0])
	}
}

func TestConfigAndTarget(t *testing.T) {
	for _, cfg := range []Config{{}, {BaseURL: "reviews.example.org", Token: "t"}, {BaseURL: "https://r.example.org"}} {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%+v) succeeded", cfg)
		}
	}
	c, _ := New(Config{BaseURL: "https://r.example.org", Token: "t"})
	for _, w := range []string{"", "abc", "-1", "0", "12/x"} {
		if _, err := c.Post(context.Background(), w, msg("k", "x")); err == nil {
			t.Errorf("target %q accepted", w)
		}
	}
	if _, err := c.resolve("https://evil.example.com/api/"); err == nil {
		t.Error("a link off the site was followed")
	}
}
