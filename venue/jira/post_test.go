package jira

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/target"
	"github.com/perfbot/perfbot/venue/retry"
)

func noWait(waits *[]time.Duration) retry.Policy {
	return retry.Policy{Attempts: 8, Sleep: func(ctx context.Context, d time.Duration) error {
		*waits = append(*waits, d)
		return ctx.Err()
	}}
}

func newClient(t *testing.T, f *fakeJIRA, cfg Config, waits *[]time.Duration) *Client {
	t.Helper()
	cfg.BaseURL = f.srv.URL
	cfg.Retry = noWait(waits)
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func message(key, body string) answer.Answer {
	return answer.Answer{Key: key, Summary: "2 better", Attachments: []answer.Attachment{{Name: "results.json", ContentType: "application/json", Data: []byte(`{"a":1}`)}}, Renderings: map[answer.Format]answer.Rendering{answer.JIRAWiki: {Full: body, Short: "short\n"}}}
}

func TestPostCreatesThenEdits(t *testing.T) {
	f := newFakeJIRA(t)
	for i := range 120 { // two pages of someone else's comments
		f.comments = append(f.comments, fakeComment{ID: "c" + string(rune('a'+i%26)), Body: "+1"})
	}
	var waits []time.Duration
	c := newClient(t, f, Config{User: f.user, Token: f.token}, &waits)
	ctx := context.Background()
	link, err := c.Post(ctx, target.MustParse("jira:STORE-1"), message("job-1", "||Threads||Default||Async||Diff||\n|10|1.0|3.7|{color:green}3.7x{color}|\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(link, f.srv.URL+"/browse/STORE-1?focusedCommentId=10002") {
		t.Errorf("link %q", link)
	}
	link2, err := c.Post(ctx, target.MustParse("jira:STORE-1"), message("job-1", "rerun\n"))
	if err != nil {
		t.Fatal(err)
	}
	if link2 != link || len(f.comments) != 121 {
		t.Fatalf("rerun: link %q, %d comments; want the same comment edited", link2, len(f.comments))
	}
	if got := f.comments[120].Body; got != "{anchor:perfbot-job-1}\nrerun\n" {
		t.Errorf("body %q", got)
	}
	if len(f.attachments) != 1 || f.attachments[0].Filename != "results.json" || string(f.attachments[0].Data) != `{"a":1}` || f.attachments[0].MimeType != "application/json" {
		t.Errorf("attachments %+v: want results.json once", f.attachments)
	}
}

func TestPostWithPAT(t *testing.T) {
	f := newFakeJIRA(t)
	f.pat = "NjM4PATtoken0123456789"
	var waits []time.Duration
	c := newClient(t, f, Config{PAT: f.pat}, &waits)
	if _, err := c.Post(context.Background(), target.MustParse("jira:STORE-1"), message("k", "x")); err != nil {
		t.Fatal(err)
	}
}

func TestPostRidesOutStorm(t *testing.T) {
	f := newFakeJIRA(t)
	f.fail = []int{502, 429, 503, 429, 502, 503}
	var waits []time.Duration
	c := newClient(t, f, Config{User: f.user, Token: f.token}, &waits)
	if _, err := c.Post(context.Background(), target.MustParse("jira:STORE-1"), message("k", "x")); err != nil {
		t.Fatal(err)
	}
	if len(f.comments) != 1 || len(f.attachments) != 1 {
		t.Errorf("%d comments, %d attachments", len(f.comments), len(f.attachments))
	}
	if len(waits) != 6 || waits[1] != time.Second {
		t.Errorf("waits %v: want six, the second the 429's Retry-After of 1s", waits)
	}
}

func TestPostFailsFast(t *testing.T) {
	tests := []struct {
		name  string
		token string
		issue string
		fail  int
		want  string
	}{
		{"401", "wrong-token-wrong-token", "STORE-1", 0, "401 Unauthorized: You are not authenticated"},
		{"404", "", "STORE-2", 0, "404 Not Found: Issue does not exist"},
		{"403", "", "STORE-1", http.StatusForbidden, "403 Forbidden"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeJIRA(t)
			f.echoAuth = true
			if tc.fail != 0 {
				f.fail = []int{tc.fail}
			}
			tok := tc.token
			if tok == "" {
				tok = f.token
			}
			var waits []time.Duration
			c := newClient(t, f, Config{User: f.user, Token: tok}, &waits)
			_, err := c.Post(context.Background(), target.Issue(tc.issue), message("k", "x"))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			t.Log(err)
			reqs := slices.DeleteFunc(slices.Clone(f.requests), func(r string) bool { return r == "GET /rest/api/2/myself" })
			if len(reqs) == 0 {
				reqs = f.requests // asking who perfbot is failed
			}
			if len(reqs) != 1 || len(waits) != 0 {
				t.Errorf("requests %v: want one (besides asking who perfbot is), no retry", f.requests)
			}
			if strings.Contains(err.Error(), tok) || strings.Contains(err.Error(), "Basic ") && !strings.Contains(err.Error(), "[REDACTED]") {
				t.Errorf("credentials in error: %v", err)
			}
		})
	}
}

func TestSearch(t *testing.T) {
	for _, cloud := range []bool{false, true} {
		f := newFakeJIRA(t)
		f.cloud = cloud
		f.issues = []string{"STORE-1", "STORE-2", "STORE-3", "STORE-4", "STORE-5"}
		var waits []time.Duration
		c := newClient(t, f, Config{User: f.user, Token: f.token}, &waits)
		got, err := c.Search(context.Background(), `project = STORE AND attachments IS NOT EMPTY`, 0)
		if err != nil {
			t.Fatalf("cloud=%v: %v", cloud, err)
		}
		if len(got) != 5 || got[4].Key != "STORE-5" || got[0].Attachments[0].Filename != "STORE-1.patch" || got[0].Updated.IsZero() {
			t.Errorf("cloud=%v: %+v", cloud, got)
		}
		if cloud != strings.Contains(strings.Join(f.requests, " "), "/rest/api/3/search/jql") {
			t.Errorf("cloud=%v used %v", cloud, f.requests)
		}
		limited, err := c.Search(context.Background(), "project = STORE", 3)
		if err != nil || len(limited) != 3 {
			t.Errorf("cloud=%v: max 3 gave %d, %v", cloud, len(limited), err)
		}
	}
}

func TestCommentBodyLimits(t *testing.T) {
	long := "*2 better*\n{code}\n" + strings.Repeat("row 1.0 2.0\n", 4000) + "{code}\nprovenance\n"
	got := CommentBody(answer.Answer{Key: "k", Renderings: map[answer.Format]answer.Rendering{answer.JIRAWiki: {Full: long, Short: "short\n"}}})
	if got != "{anchor:perfbot-k}\nshort\n" {
		t.Errorf("want ShortJIRA, got %.60q", got)
	}
	got = CommentBody(answer.Answer{Key: "k", Renderings: map[answer.Format]answer.Rendering{answer.JIRAWiki: {Full: long, Short: long}}})
	if n := len([]rune(got)); n > CommentLimit {
		t.Fatalf("%d characters", n)
	}
	if !strings.HasPrefix(got, "{anchor:perfbot-k}\n*2 better*\n") || !strings.HasSuffix(got, "{code}\nprovenance\n") || strings.Count(got, "{code}")%2 != 0 {
		t.Errorf("cut badly: %.80q … %q", got, got[len(got)-40:])
	}
	if m := Marker("a}b{c d"); m != "{anchor:perfbot-a_b_c_d}" {
		t.Errorf("marker %q", m)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, cfg := range []Config{{}, {BaseURL: "ftp://x"}, {BaseURL: "https://x"}, {BaseURL: "https://x", User: "u", Token: "t", PAT: "p"}, {BaseURL: "https://x", PAT: "p", Deployment: "moon"}} {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%+v) succeeded", cfg)
		}
	}
	c, _ := New(Config{BaseURL: "https://x", PAT: "p"})
	// target.Parse refuses malformed keys; another venue's target is refused here.
	for _, to := range []target.Target{target.ReviewRequest(1), {}} {
		if _, err := c.Post(context.Background(), to, answer.Answer{Key: "k"}); err == nil {
			t.Errorf("target %+v accepted", to)
		}
	}
}

func TestAttachmentNameQuoted(t *testing.T) {
	f := newFakeJIRA(t)
	var waits []time.Duration
	c := newClient(t, f, Config{User: f.user, Token: f.token}, &waits)
	m := message("k", "x")
	m.Attachments[0].Name = `team <script>{html} "q" ü.json`
	if _, err := c.Post(context.Background(), target.MustParse("jira:STORE-1"), m); err != nil {
		t.Fatal(err)
	}
	if len(f.attachments) != 1 || f.attachments[0].Filename != m.Attachments[0].Name {
		t.Errorf("attachments %+v", f.attachments)
	}
}

// TestPostCloudFindsCommentByProperty: JIRA Cloud returns the comment
// without its {anchor} marker, so only the comment property can find it;
// a rerun must still edit the one comment. A comment that carries only the
// marker (written before properties were used) is found too.
func TestPostCloudFindsCommentByProperty(t *testing.T) {
	f := newFakeJIRA(t)
	f.cloud = true
	var waits []time.Duration
	c := newClient(t, f, Config{User: f.user, Token: f.token, Deployment: Cloud}, &waits)
	ctx := context.Background()
	for _, body := range []string{"first\n", "rerun\n"} {
		if _, err := c.Post(ctx, target.MustParse("jira:STORE-1"), message("job-7", body)); err != nil {
			t.Fatal(err)
		}
	}
	if len(f.comments) != 1 || f.comments[0].Body != "{anchor:perfbot-job-7}\nrerun\n" {
		t.Fatalf("comments %+v: want one, edited", f.comments)
	}

	f.cloud = false
	c = newClient(t, f, Config{User: f.user, Token: f.token}, &waits) // a Server site's account
	f.comments = []fakeComment{{ID: "500", Body: "{anchor:perfbot-job-8}old answer\n"}}
	if _, err := c.Post(ctx, target.MustParse("jira:STORE-1"), message("job-8", "new answer\n")); err != nil {
		t.Fatal(err)
	}
	if len(f.comments) != 1 || f.comments[0].Body != "{anchor:perfbot-job-8}\nnew answer\n" || len(f.comments[0].Properties) != 1 {
		t.Errorf("marker-only comment: %+v, want it edited and given the property", f.comments)
	}
}
