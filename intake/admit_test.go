package intake

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/internal/storetest"
	"github.com/perfbot/perfbot/job/jobspec"
	"github.com/perfbot/perfbot/target"
	"github.com/perfbot/perfbot/trigger"
)

type fakeQueue struct {
	keys map[string]bool
	jobs []jobspec.Spec
	fail error
}

func (q *fakeQueue) Enqueue(ctx context.Context, spec jobspec.Spec) (int64, bool, error) {
	if q.fail != nil {
		return 0, false, q.fail
	}
	if q.keys[spec.Key] {
		return 1, true, nil
	}
	q.keys[spec.Key] = true
	q.jobs = append(q.jobs, spec)
	return int64(len(q.jobs)), false, nil
}

type fakeMetrics struct {
	mu     sync.Mutex
	counts map[string]int
}

func (m *fakeMetrics) Inc(name string, labels ...string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.counts[name+fmt.Sprint(labels)]++
}

type fakePoster struct{ msgs []answer.Answer }

func (p *fakePoster) Post(ctx context.Context, to target.Target, msg answer.Answer) (string, error) {
	p.msgs = append(p.msgs, msg)
	return "link", nil
}

// TestAdmit follows requests through the one admit step: recorded once,
// refused with a throttled answer, prepared and queued, forgotten when
// they fail so that they come again, and counted once each.
func TestAdmit(t *testing.T) {
	st := storetest.SQLite(t)
	q := &fakeQueue{keys: map[string]bool{}}
	m := &fakeMetrics{counts: map[string]int{}}
	poster := &fakePoster{}
	a := &Admitter{Queue: q, Tested: st, Claims: st, Poster: poster, Metrics: m}
	ctx := context.Background()
	policy := trigger.Policy{AllowUsers: []string{"dev"}, RequireWrite: true}
	req := func(user, rev string) Request {
		key := "jira:STORE-1/attachment/" + rev
		return Request{
			Job:  jobspec.Spec{Key: key, Targets: []target.Target{target.MustParse("jira:STORE-1")}, Requester: user, Source: "jira"},
			Once: &Once{Venue: "jira", Item: "STORE-1", Revision: rev},
			Decide: func(context.Context) (trigger.Decision, error) {
				return policy.Tracker(trigger.JIRA, user), nil
			},
			Refuse:   a.PostRefusal(target.MustParse("jira:STORE-1"), key+"/refused", "STORE-1", nil),
			Throttle: "refusal:jira:STORE-1:" + user,
		}
	}
	steps := []struct {
		name string
		req  Request
		want Outcome
		err  bool
	}{
		{"allowed", req("dev", "1"), Queued, false},
		{"the same again", req("dev", "1"), Seen, false},
		{"refused", req("mallory", "2"), Refused, false},
		{"refused again, another revision", req("mallory", "3"), Throttled, false},
		{"prepare fails", func() Request {
			r := req("dev", "4")
			r.Prepare = func(context.Context, *jobspec.Spec) error { return errors.New("download: 503") }
			return r
		}(), "", true},
		{"prepare succeeds on the next poll", func() Request {
			r := req("dev", "4")
			r.Prepare = func(_ context.Context, s *jobspec.Spec) error { s.Patch = "diff"; return nil }
			return r
		}(), Queued, false},
		{"not a patch", func() Request {
			r := req("dev", "5")
			r.Prepare = func(context.Context, *jobspec.Spec) error { return fmt.Errorf("%w: login page", ErrSkip) }
			return r
		}(), Skipped, false},
		{"merged code, no policy", Request{Job: jobspec.Spec{Key: "schedule:nightly@1", Source: "schedule"}}, Queued, false},
		{"merged code, same firing", Request{Job: jobspec.Spec{Key: "schedule:nightly@1", Source: "schedule"}}, Duplicate, false},
	}
	for _, s := range steps {
		got, err := a.Admit(ctx, s.req)
		if got != s.want || (err != nil) != s.err {
			t.Errorf("%s: %q, %v; want %q (error %v)", s.name, got, err, s.want, s.err)
		}
	}
	if len(poster.msgs) != 1 || poster.msgs[0].Key != "jira:STORE-1/attachment/2/refused" || !strings.Contains(poster.msgs[0].Full(answer.JIRAWiki), "Thank you") {
		t.Errorf("refusals posted %+v, want one for revision 2", poster.msgs)
	}
	if len(q.jobs) != 3 || q.jobs[1].Patch != "diff" {
		t.Errorf("jobs %+v, want three, the second with its patch", q.jobs)
	}
	// A skipped revision is forgotten: listed again, it is taken in again.
	if fresh, err := st.MarkTested(ctx, "jira", "STORE-1", "5", "k"); !fresh || err != nil {
		t.Errorf("skipped revision still recorded: %v, %v", fresh, err)
	}
	for key, want := range map[string]int{
		"perfbot_requests_total[source jira result queued]":            2,
		"perfbot_requests_total[source jira result seen]":              0, // not a new request
		"perfbot_requests_total[source jira result refused]":           1,
		"perfbot_requests_total[source jira result throttled]":         1,
		"perfbot_requests_total[source jira result error]":             1,
		"perfbot_requests_total[source jira result skipped]":           1,
		"perfbot_requests_total[source schedule result queued]":        1,
		"perfbot_requests_total[source schedule result duplicate]":     1,
		"perfbot_replies_throttled_total[venue jira kind refusal]":     1,
		"perfbot_trigger_decisions_total[venue jira decision refused]": 2,
	} {
		if m.counts[key] != want {
			t.Errorf("%s = %d, want %d (all: %v)", key, m.counts[key], want, m.counts)
		}
	}
	q.fail = errors.New("queue down")
	if out, err := a.Admit(ctx, req("dev", "6")); err == nil {
		t.Errorf("queue down: %q, no error", out)
	}
	if fresh, err := st.MarkTested(ctx, "jira", "STORE-1", "6", "k"); !fresh || err != nil {
		t.Errorf("a request the queue did not take is still recorded: %v, %v", fresh, err)
	}
}
