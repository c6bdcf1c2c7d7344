package reviewboard

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/perfbot/perfbot/internal/storetest"
	"github.com/perfbot/perfbot/job/jobspec"
	"github.com/perfbot/perfbot/trigger"
	rrb "github.com/perfbot/perfbot/venue/reviewboard"
)

// fakeList is a site's review requests, listed with the
// last-updated-from filter, and their diffs.
type fakeList struct {
	reqs     []rrb.Request
	since    []time.Time
	notPatch map[int]bool
	fetched  []string
	// reviews are each request's published reviews and replies, and
	// read the requests whose reviews were read.
	reviews map[int][]rrb.Review
	read    []int
}

func (f *fakeList) Reviews(ctx context.Context, id int) ([]rrb.Review, error) {
	f.read = append(f.read, id)
	return f.reviews[id], nil
}

func (f *fakeList) ListRequests(ctx context.Context, repository, status string, since time.Time) ([]rrb.Request, error) {
	f.since = append(f.since, since)
	var out []rrb.Request
	for _, r := range f.reqs {
		if !r.LastUpdated.Before(since) {
			out = append(out, r)
		}
	}
	return out, nil
}

func (f *fakeList) DiffURL(id, rev int) string {
	return fmt.Sprintf("https://reviews.example.org/api/review-requests/%d/diffs/%d/", id, rev)
}

func (f *fakeList) Diff(ctx context.Context, id, rev int) (string, error) {
	f.fetched = append(f.fetched, f.DiffURL(id, rev))
	if f.notPatch[id] {
		return "", &rrb.NotPatchError{URL: f.DiffURL(id, rev), Reason: "redirected (302 Found) to /account/login/"}
	}
	return "diff --git a/x b/x\n", nil
}

type fakeQueue struct{ jobs []jobspec.Spec }

func (q *fakeQueue) Enqueue(ctx context.Context, job jobspec.Spec) (int64, bool, error) {
	q.jobs = append(q.jobs, job)
	return int64(len(q.jobs)), false, nil
}

func TestPollQueuesNewRevisions(t *testing.T) {
	st := storetest.SQLite(t)
	t0 := time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC)
	list := &fakeList{reqs: []rrb.Request{
		{ID: 42, Summary: "Faster scans", DiffRevision: 1, Submitter: "dev", LastUpdated: t0},
		{ID: 43, Summary: "No diff yet", LastUpdated: t0.Add(time.Minute)},
	}}
	q := &fakeQueue{}
	p := &Poller{List: list, Diffs: list, Queue: q, Tested: st, Repository: "3",
		Policy: &trigger.Policy{AllowUsers: []string{"reviewboard:dev"}, RequireWrite: true}}
	ctx := context.Background()
	for i, want := range []int{1, 0} {
		if n, err := p.Poll(ctx); err != nil || n != want {
			t.Fatalf("poll %d queued %d, %v; want %d", i, n, err, want)
		}
	}
	list.reqs[0].DiffRevision, list.reqs[0].LastUpdated = 2, t0.Add(time.Hour)
	if n, err := p.Poll(ctx); err != nil || n != 1 {
		t.Fatalf("new revision: queued %d, %v", n, err)
	}
	if len(q.jobs) != 2 || q.jobs[1].Key != "reviewboard:42/diff/2" || q.jobs[1].Targets[0].String() != "reviewboard:42" ||
		q.jobs[1].PatchURL != "https://reviews.example.org/api/review-requests/42/diffs/2/" || q.jobs[1].Patch != "diff --git a/x b/x\n" {
		t.Errorf("jobs = %+v", q.jobs)
	}
	// The first poll lists everything, each later one what changed since
	// the latest update it saw.
	want := []time.Time{{}, t0.Add(time.Minute), t0.Add(time.Minute)}
	if fmt.Sprint(list.since) != fmt.Sprint(want) {
		t.Errorf("polls since %v, want %v", list.since, want)
	}
}

// TestPollRefusesWhatIsNotAPatch: a diff the site answers with a login
// page is never queued or answered; the reason is logged.
func TestPollRefusesWhatIsNotAPatch(t *testing.T) {
	list := &fakeList{reqs: []rrb.Request{{ID: 45, Summary: "x", DiffRevision: 1, Submitter: "dev"}}, notPatch: map[int]bool{45: true}}
	q, poster := &fakeQueue{}, &fakePoster{}
	var logs bytes.Buffer
	p := &Poller{List: list, Diffs: list, Queue: q, Tested: storetest.SQLite(t), Repository: "3", Poster: poster,
		Policy: &trigger.Policy{AllowUsers: []string{"dev"}, RequireWrite: true}, Log: slog.New(slog.NewTextHandler(&logs, nil))}
	if n, err := p.Poll(context.Background()); n != 0 || err != nil {
		t.Fatalf("poll queued %d, %v", n, err)
	}
	if len(q.jobs) != 0 || len(poster.posts) != 0 {
		t.Errorf("jobs %+v, posts %+v: want none", q.jobs, poster.posts)
	}
	if !strings.Contains(logs.String(), `msg="request skipped" key=reviewboard:45/diff/1 reason="nothing to run: diff 1 of review request 45 is not a patch (redirected (302 Found) to /account/login/); no review posted"`) {
		t.Errorf("log:\n%s", logs.String())
	}
}
