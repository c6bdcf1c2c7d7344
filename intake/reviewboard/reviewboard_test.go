package reviewboard

import (
	"context"
	"testing"

	"github.com/perfbot/perfbot/bot"
	"github.com/perfbot/perfbot/internal/storetest"
	rrb "github.com/perfbot/perfbot/review/reviewboard"
	"github.com/perfbot/perfbot/trigger"
)

type fakeList struct{ reqs []rrb.Request }

func (f *fakeList) ListRequests(ctx context.Context, repository, status string) ([]rrb.Request, error) {
	return f.reqs, nil
}

type fakeQueue struct{ jobs []bot.JobSpec }

func (q *fakeQueue) Enqueue(ctx context.Context, job bot.JobSpec) (int64, bool, error) {
	q.jobs = append(q.jobs, job)
	return int64(len(q.jobs)), false, nil
}

func TestPollQueuesNewRevisions(t *testing.T) {
	st := storetest.SQLite(t)
	list := &fakeList{reqs: []rrb.Request{
		{ID: 42, Summary: "Faster scans", DiffRevision: 1, Submitter: "dev"},
		{ID: 43, Summary: "No diff yet"},
	}}
	q := &fakeQueue{}
	p := &Poller{List: list, Queue: q, Tested: st, URL: "https://reviews.example.org/", Repository: "3",
		Policy: &trigger.Policy{AllowUsers: []string{"reviewboard:dev"}, RequireWrite: true}}
	ctx := context.Background()
	for i, want := range []int{1, 0} {
		if n, err := p.Poll(ctx); err != nil || n != want {
			t.Fatalf("poll %d queued %d, %v; want %d", i, n, err, want)
		}
	}
	list.reqs[0].DiffRevision = 2
	if n, err := p.Poll(ctx); err != nil || n != 1 {
		t.Fatalf("new revision: queued %d, %v", n, err)
	}
	if len(q.jobs) != 2 || q.jobs[1].Key != "reviewboard:42/diff/2" || q.jobs[1].Targets[0] != "reviewboard:42" ||
		q.jobs[1].PatchURL != "https://reviews.example.org/r/42/diff/2/raw/" {
		t.Errorf("jobs = %+v", q.jobs)
	}
}
