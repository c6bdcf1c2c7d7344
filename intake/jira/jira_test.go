package jira

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/internal/storetest"
	"github.com/perfbot/perfbot/job/jobspec"
	"github.com/perfbot/perfbot/trigger"
	rjira "github.com/perfbot/perfbot/venue/jira"
)

type fakeSearch struct {
	jql    string
	issues []rjira.Issue
}

func (f *fakeSearch) Search(ctx context.Context, jql string, max int) ([]rjira.Issue, error) {
	f.jql = jql
	return f.issues, nil
}

// devOnly runs the patches of JIRA user dev.
var devOnly = trigger.Policy{AllowUsers: []string{"jira:dev"}, RequireWrite: true}

type fakeQueue struct{ jobs []jobspec.Spec }

func (q *fakeQueue) Enqueue(ctx context.Context, job jobspec.Spec) (int64, bool, error) {
	q.jobs = append(q.jobs, job)
	return int64(len(q.jobs)), false, nil
}

func TestNewest(t *testing.T) {
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	is := rjira.Issue{Key: "STORE-1", Attachments: []rjira.Attachment{
		{ID: "10001", Filename: "STORE-1.001.patch", Created: t0},
		{ID: "10005", Filename: "flame.svg", Created: t0.Add(3 * time.Hour)},
		{ID: "10003", Filename: "STORE-1.002.diff", Created: t0.Add(time.Hour)},
		{ID: "10010", Filename: "STORE-1.003.PATCH", Created: t0.Add(time.Hour)},
	}}
	a, ok := Newest(is)
	if !ok || a.ID != "10010" {
		t.Errorf("Newest = %+v, %v; want 10010 (same time as 10003, higher id)", a, ok)
	}
	if _, ok := Newest(rjira.Issue{Attachments: []rjira.Attachment{{Filename: "log.txt"}}}); ok {
		t.Error("a log file counted as a patch")
	}
}

func TestPollQueuesEachPatchOnce(t *testing.T) {
	st := storetest.SQLite(t)
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	search := &fakeSearch{issues: []rjira.Issue{
		{Key: "STORE-1", Summary: "Faster scans", Attachments: []rjira.Attachment{
			{ID: "10001", Filename: "STORE-1.001.patch", Created: t0, Author: "dev", Content: "https://issues.example.org/secure/attachment/10001/STORE-1.001.patch"}}},
		{Key: "STORE-2", Summary: "Docs only", Attachments: []rjira.Attachment{{ID: "10002", Filename: "notes.txt", Created: t0}}},
	}}
	q := &fakeQueue{}
	p := &Poller{Search: search, Queue: q, Tested: st, Policy: &devOnly}
	ctx := context.Background()
	for i, want := range []int{1, 0} {
		n, err := p.Poll(ctx)
		if err != nil || n != want {
			t.Fatalf("poll %d queued %d, %v; want %d", i, n, err, want)
		}
	}
	if search.jql != DefaultJQL {
		t.Errorf("jql = %q", search.jql)
	}
	// A new revision of the patch is queued.
	search.issues[0].Attachments = append(search.issues[0].Attachments,
		rjira.Attachment{ID: "10007", Filename: "STORE-1.002.patch", Created: t0.Add(time.Hour), Author: "dev", Content: "https://issues.example.org/secure/attachment/10007/STORE-1.002.patch"})
	if n, err := p.Poll(ctx); err != nil || n != 1 {
		t.Fatalf("poll after new attachment queued %d, %v", n, err)
	}
	want := []string{"jira:STORE-1/attachment/10001", "jira:STORE-1/attachment/10007"}
	if len(q.jobs) != 2 || q.jobs[0].Key != want[0] || q.jobs[1].Key != want[1] {
		t.Fatalf("jobs = %+v", q.jobs)
	}
	if j := q.jobs[1]; j.Targets[0].String() != "jira:STORE-1" || j.PatchURL == "" || j.Source != "jira" {
		t.Errorf("job = %+v", j)
	}
}

func TestPollFetchesPatch(t *testing.T) {
	st := storetest.SQLite(t)
	search := &fakeSearch{issues: []rjira.Issue{{Key: "STORE-3", Attachments: []rjira.Attachment{
		{ID: "20001", Filename: "STORE-3.patch", Author: "dev", Content: "https://issues.example.org/secure/attachment/20001/STORE-3.patch"}}}}}
	q := &fakeQueue{}
	fail := true
	p := &Poller{Search: search, Queue: q, Tested: st, Policy: &devOnly, Fetch: func(ctx context.Context, url string) (string, error) {
		if fail {
			return "", fmt.Errorf("503 Service Unavailable")
		}
		return testPatch, nil
	}}
	ctx := context.Background()
	if n, err := p.Poll(ctx); n != 0 || err == nil || !strings.Contains(err.Error(), "20001/STORE-3.patch") {
		t.Fatalf("failed fetch: queued %d, %v", n, err)
	}
	fail = false // the next poll tries again
	if n, err := p.Poll(ctx); n != 1 || err != nil || q.jobs[0].Patch != testPatch {
		t.Fatalf("queued %d, %v, jobs %+v", n, err, q.jobs)
	}
}

// testPatch is a patch as a JIRA attachment holds it.
const testPatch = "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"

// TestPollRefusesLoginPage: an attachment download that is a web page (a
// login form the site served instead of the file) is not queued as a
// patch; the issue gets an answer saying so, once.
func TestPollRefusesLoginPage(t *testing.T) {
	st := storetest.SQLite(t)
	search := &fakeSearch{issues: []rjira.Issue{{Key: "STORE-4", Summary: "faster scans", Attachments: []rjira.Attachment{
		{ID: "20002", Filename: "STORE-4.patch", Author: "dev", Content: "https://issues.example.org/secure/attachment/20002/STORE-4.patch"}}}}}
	q, poster := &fakeQueue{}, &fakePoster{}
	p := &Poller{Search: search, Queue: q, Tested: st, Policy: &devOnly, Poster: poster,
		Fetch: func(ctx context.Context, url string) (string, error) {
			return "<!DOCTYPE html>\n<html><head><title>Log in - Issues</title></head><form action=\"/login.jsp\"></form></html>\n", nil
		}}
	for range 2 {
		if n, err := p.Poll(context.Background()); n != 0 || err != nil {
			t.Fatalf("queued %d, %v", n, err)
		}
	}
	if len(q.jobs) != 0 || len(poster.msgs) != 1 || poster.posts[0].Where() != "STORE-4" {
		t.Fatalf("jobs %+v, answers %+v", q.jobs, poster.posts)
	}
	if m := poster.msgs[0]; !strings.Contains(m.Full(answer.Text), "STORE-4.patch: the download is not a patch (it is an HTML or XML document") ||
		strings.Contains(m.Full(answer.Text), "does not apply") {
		t.Errorf("answer = %q", m.Full(answer.Text))
	}
}
