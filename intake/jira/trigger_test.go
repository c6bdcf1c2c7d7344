package jira

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/internal/storetest"
	"github.com/perfbot/perfbot/target"
	"github.com/perfbot/perfbot/trigger"
	rjira "github.com/perfbot/perfbot/venue/jira"
)

type fakePoster struct {
	posts []target.Target
	msgs  []answer.Answer
}

func (f *fakePoster) Post(ctx context.Context, to target.Target, msg answer.Answer) (string, error) {
	f.posts, f.msgs = append(f.posts, to), append(f.msgs, msg)
	return "https://issues.example.org/browse/" + to.Where(), nil
}

// TestPollTrackerPolicy: the attachment's author decides; a refused patch
// is never fetched or queued, is answered once on its issue, and every
// decision is logged.
func TestPollTrackerPolicy(t *testing.T) {
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	issues := func() []rjira.Issue {
		return []rjira.Issue{
			{Key: "STORE-1", Summary: "Faster scans", Attachments: []rjira.Attachment{
				{ID: "10001", Filename: "STORE-1.patch", Created: t0, Author: "dev", Content: "https://issues.example.org/secure/attachment/10001/STORE-1.patch"}}},
			{Key: "STORE-2", Summary: "Mine", Attachments: []rjira.Attachment{
				{ID: "10002", Filename: "STORE-2.patch", Created: t0, Author: "drive-by", Content: "https://issues.example.org/secure/attachment/10002/STORE-2.patch"}}},
		}
	}
	tests := []struct {
		name    string
		policy  *trigger.Policy
		queued  []string
		refused []string
		log     string
	}{
		{"listed author", &devOnly, []string{"STORE-1"}, []string{"STORE-2"}, `msg="trigger policy: refused" key=jira:STORE-2/attachment/10002 requester=drive-by reason="JIRA user drive-by is not in the trigger allow list"`},
		{"every author, as Apache Yetus", &trigger.Policy{RequireWrite: true, AnyTrackerUser: true}, []string{"STORE-1", "STORE-2"}, nil, `msg="trigger policy: allowed" key=jira:STORE-2/attachment/10002 requester=drive-by reason="JIRA user drive-by may start runs`},
		{"no policy runs nothing", nil, nil, []string{"STORE-1", "STORE-2"}, `msg="trigger policy: refused" key=jira:STORE-1/attachment/10001`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := storetest.SQLite(t)
			var logs bytes.Buffer
			var fetched []string
			q, poster := &fakeQueue{}, &fakePoster{}
			p := &Poller{Search: &fakeSearch{issues: issues()}, Queue: q, Tested: st, Policy: tt.policy, Poster: poster,
				Log: slog.New(slog.NewTextHandler(&logs, nil)),
				Fetch: func(ctx context.Context, url string) (string, error) {
					fetched = append(fetched, url)
					return testPatch, nil
				}}
			for range 2 { // the second poll changes nothing
				if _, err := p.Poll(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			var queued, refused []string
			for _, j := range q.jobs {
				queued = append(queued, j.Targets[0].Key)
			}
			for _, to := range poster.posts {
				refused = append(refused, to.Where())
			}
			if strings.Join(queued, " ") != strings.Join(tt.queued, " ") || len(fetched) != len(tt.queued) {
				t.Errorf("queued %v (fetched %d), want %v", queued, len(fetched), tt.queued)
			}
			if strings.Join(refused, " ") != strings.Join(tt.refused, " ") {
				t.Errorf("refusals posted to %v, want %v", refused, tt.refused)
			}
			for i, m := range poster.msgs {
				if !strings.HasPrefix(m.Key, "jira:"+poster.posts[i].Where()+"/attachment/") || !strings.HasSuffix(m.Key, "/refused") ||
					!strings.HasPrefix(m.Full(answer.Text), "Thank you for the patch") || !strings.Contains(m.Full(answer.JIRAWiki), "Thank you for the patch") {
					t.Errorf("answer %d: %+v, want the polite refusal under the attachment's key", i, m)
				}
			}
			if !strings.Contains(logs.String(), tt.log) {
				t.Errorf("log lacks %s:\n%s", tt.log, logs.String())
			}
		})
	}
}
