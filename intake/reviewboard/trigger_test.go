package reviewboard

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/internal/storetest"
	"github.com/perfbot/perfbot/target"
	"github.com/perfbot/perfbot/trigger"
	rrb "github.com/perfbot/perfbot/venue/reviewboard"
)

type fakePoster struct{ posts []answer.Answer }

func (f *fakePoster) Post(ctx context.Context, to target.Target, msg answer.Answer) (string, error) {
	if to.Venue != "reviewboard" {
		return "", nil
	}
	f.posts = append(f.posts, msg)
	return "https://reviews.example.org/r/" + to.Where() + "/", nil
}

// TestPollTrackerPolicy: the submitter decides; a refused diff is never
// fetched or queued, is answered once on its review request, and the
// decisions are logged.
func TestPollTrackerPolicy(t *testing.T) {
	st := storetest.SQLite(t)
	list := &fakeList{reqs: []rrb.Request{
		{ID: 42, Summary: "Faster scans", DiffRevision: 1, Submitter: "dev"},
		{ID: 44, Summary: "Mine", DiffRevision: 3, Submitter: "drive-by"},
	}}
	var logs bytes.Buffer
	q, poster := &fakeQueue{}, &fakePoster{}
	p := &Poller{List: list, Diffs: list, Queue: q, Tested: st, Repository: "3",
		Policy: &trigger.Policy{AllowUsers: []string{"reviewboard:dev"}, RequireWrite: true}, Poster: poster,
		Log: slog.New(slog.NewTextHandler(&logs, nil))}
	for i, want := range []int{1, 0} {
		if n, err := p.Poll(context.Background()); err != nil || n != want {
			t.Fatalf("poll %d queued %d, %v; want %d", i, n, err, want)
		}
	}
	if len(q.jobs) != 1 || q.jobs[0].Key != "reviewboard:42/diff/1" || len(list.fetched) != 1 {
		t.Errorf("jobs %+v, fetched %v; want only r/42", q.jobs, list.fetched)
	}
	if len(poster.posts) != 1 || poster.posts[0].Key != "reviewboard:44/diff/3/refused" ||
		!strings.Contains(poster.posts[0].Full(answer.MarkdownRB), "drive") || !strings.HasPrefix(poster.posts[0].Full(answer.Text), "Thank you for the patch, drive-by.") {
		t.Errorf("answers %+v, want one polite refusal on r/44", poster.posts)
	}
	for _, line := range []string{
		`msg="trigger policy: allowed" key=reviewboard:42/diff/1 requester=dev reason="Review Board user dev is listed in the trigger allow list"`,
		`msg="trigger policy: refused" key=reviewboard:44/diff/3 requester=drive-by reason="Review Board user drive-by is not in the trigger allow list"`,
	} {
		if !strings.Contains(logs.String(), line) {
			t.Errorf("log lacks %s:\n%s", line, logs.String())
		}
	}
}
