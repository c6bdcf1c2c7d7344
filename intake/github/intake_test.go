package github

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/job/jobspec"
	"github.com/perfbot/perfbot/service"
	"github.com/perfbot/perfbot/store"
	"github.com/perfbot/perfbot/target"
)

// recordingQueue queues into a real service and records every request.
type recordingQueue struct {
	svc  *service.Service
	mu   sync.Mutex
	jobs []jobspec.Spec
	new  int
}

func (q *recordingQueue) Enqueue(ctx context.Context, job jobspec.Spec) (int64, bool, error) {
	id, dup, err := q.svc.Enqueue(ctx, job)
	q.mu.Lock()
	defer q.mu.Unlock()
	q.jobs = append(q.jobs, job)
	if err == nil && !dup {
		q.new++
	}
	return id, dup, err
}

type fixture struct {
	fake   *fakeGitHub
	queue  *recordingQueue
	intake *Intake
	server *httptest.Server
	st     *store.Store
	// metrics are the service's, which the intake counts in.
	metrics *service.Metrics
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	cfg := &config.Config{}
	off := false
	cfg.Service.EmbeddedWorkers = &off
	cfg.Store.Path = filepath.Join(t.TempDir(), "perfbot.db")
	cfg.Defaults()
	svc, err := service.Open(context.Background(), cfg, service.ModeServe, service.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	f := &fixture{fake: newFakeGitHub(t), queue: &recordingQueue{svc: svc}, st: svc.Store()}
	f.fake.permissions["maintainer"] = "maintain"
	f.fake.permissions["writer"] = "write"
	policy := config.Triggers{Allow: []string{"committers", "release-bot"}}.Policy()
	f.metrics = svc.Metrics()
	f.intake = &Intake{Client: f.fake.client(), Queue: f.queue, Seen: svc.Store(), Secret: []byte("s3cret"),
		Repo: "acme/store", Policy: &policy, Metrics: svc.Metrics()}
	f.server = httptest.NewServer(f.intake)
	t.Cleanup(f.server.Close)
	return f
}

func sign(secret, body []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

func (f *fixture) deliver(t *testing.T, delivery, signature string, body []byte) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, f.server.URL, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-GitHub-Event", "issue_comment")
	req.Header.Set("X-GitHub-Delivery", delivery)
	req.Header.Set("X-GitHub-Hook-ID", "42")
	req.Header.Set("User-Agent", "GitHub-Hookshot/abc123")
	if signature != "" {
		req.Header.Set("X-Hub-Signature-256", signature)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

func payload(t *testing.T, edit func(ev map[string]any)) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/issue_comment.json")
	if err != nil {
		t.Fatal(err)
	}
	if edit == nil {
		return data
	}
	var ev map[string]any
	if err := json.Unmarshal(data, &ev); err != nil {
		t.Fatal(err)
	}
	edit(ev)
	out, _ := json.Marshal(ev)
	return out
}

func setComment(login string, id float64, body string) func(map[string]any) {
	return func(ev map[string]any) {
		c := ev["comment"].(map[string]any)
		c["user"].(map[string]any)["login"] = login
		c["id"] = id
		if body != "" {
			c["body"] = body
		}
		ev["sender"].(map[string]any)["login"] = login
	}
}

func TestWebhookBadSignature(t *testing.T) {
	f := newFixture(t)
	body := payload(t, nil)
	for name, sig := range map[string]string{
		"missing":    "",
		"wrong key":  sign([]byte("other"), body),
		"not hex":    "sha256=zz",
		"sha1":       "sha1=" + strings.Repeat("0", 40),
		"truncated":  sign([]byte("s3cret"), body)[:30],
		"other body": sign([]byte("s3cret"), append(body, ' ')),
	} {
		if resp := f.deliver(t, "bad-"+name, sig, body); resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s signature: status %d, want 401", name, resp.StatusCode)
		}
	}
	reactions, replies := f.fake.snapshot()
	if len(f.queue.jobs) != 0 || len(reactions) != 0 || len(replies) != 0 {
		t.Errorf("a bad signature had effects: jobs %v, reactions %v, replies %v", f.queue.jobs, reactions, replies)
	}
	// The rejected delivery ids were not recorded: the real delivery with
	// the same id still works.
	if resp := f.deliver(t, "bad-missing", sign([]byte("s3cret"), body), body); resp.StatusCode != http.StatusOK {
		t.Errorf("good delivery after bad ones: status %d", resp.StatusCode)
	}
	if f.queue.new != 1 {
		t.Errorf("queued %d jobs, want 1", f.queue.new)
	}
}

func TestWebhookQueuesOnceAndAcknowledges(t *testing.T) {
	f := newFixture(t)
	body := payload(t, nil)
	sig := sign([]byte("s3cret"), body)
	for i := 0; i < 3; i++ { // GitHub's "redeliver" sends the same delivery id
		if resp := f.deliver(t, "72d3162e-cc78-11e3-81ab-4c9367dc0958", sig, body); resp.StatusCode != http.StatusOK {
			t.Fatalf("delivery %d: status %d", i, resp.StatusCode)
		}
	}
	// The same comment under a new delivery id (not covered by the
	// signature) is seen by its comment id and never reaches the queue.
	if resp, text := f.post(t, "a-new-delivery-id", "application/json", sig, bytes.NewReader(body)); resp.StatusCode != http.StatusOK || strings.TrimSpace(text) != "seen" {
		t.Fatalf("replay under a new delivery id: %d %q, want 200 seen", resp.StatusCode, text)
	}
	if f.queue.new != 1 || len(f.queue.jobs) != 1 {
		t.Fatalf("new jobs %d, enqueue calls %d; want 1 and 1 (replays never reach the queue)", f.queue.new, len(f.queue.jobs))
	}
	got0 := f.queue.jobs[0]
	want := jobspec.Spec{Key: "github:acme/store#12/comment/1987654321", Targets: []target.Target{target.MustParse("github:acme/store#12")},
		Suites: []string{"wal"}, BaseRef: "main", CandidateRef: "pull/12/head", CandidateCommit: defaultHead,
		Title: "acme/store#12: Batch WAL syncs", Requester: "maintainer", Source: "github"}
	if got, _ := json.Marshal(got0); string(got) != string(must(json.Marshal(want))) {
		t.Errorf("job = %s\nwant  %s", got, must(json.Marshal(want)))
	}
	reactions, replies := f.fake.snapshot()
	if len(reactions) != 1 || reactions[0] != "1987654321:rocket" || len(replies) != 0 {
		t.Errorf("reactions %v, replies %v; want one rocket and no reply", reactions, replies)
	}
	if n := f.metrics.Counter("perfbot_webhook_deliveries_total", "result", "replayed"); n != 2 {
		t.Errorf("replayed deliveries counted %v, want 2", n)
	}
}

// TestWebhookReplayAfterQueueCleanup: a captured signed delivery sent
// again under a new X-GitHub-Delivery (which the signature does not cover)
// after the queue's completed jobs were cleaned away is refused: the
// comment id inside the signed body is recorded in the history store for
// good.
func TestWebhookReplayAfterQueueCleanup(t *testing.T) {
	f := newFixture(t)
	body := payload(t, nil)
	sig := sign([]byte("s3cret"), body)
	if resp, text := f.post(t, "first", "application/json", sig, bytes.NewReader(body)); resp.StatusCode != http.StatusOK || strings.TrimSpace(text) != "queued" {
		t.Fatalf("delivery: %d %q, want 200 queued", resp.StatusCode, text)
	}
	// The queue forgets its jobs after a day (River's retention).
	if _, err := f.st.DB().ExecContext(context.Background(), `DELETE FROM river_job`); err != nil {
		t.Fatal(err)
	}
	resp, text := f.post(t, "replayed-under-a-new-id", "application/json", sig, bytes.NewReader(body))
	if resp.StatusCode != http.StatusOK || strings.TrimSpace(text) != "seen" {
		t.Errorf("replay: %d %q, want 200 seen", resp.StatusCode, text)
	}
	if f.queue.new != 1 || len(f.queue.jobs) != 1 {
		t.Errorf("new jobs %d, enqueue calls %d; want 1 and 1: the replay must not queue a second run", f.queue.new, len(f.queue.jobs))
	}
}

// TestWebhookCommandInCodeOrComment: a command quoted in a code block or
// hidden in an HTML comment of a signed delivery is not taken.
func TestWebhookCommandInCodeOrComment(t *testing.T) {
	f := newFixture(t)
	for i, body := range []string{
		"To benchmark, write:\n```\n/perfbot run\n```",
		"~~~\n/perfbot run wal\n~~~",
		"Like this:\n\n    /perfbot run",
		"Thanks! <!--\n/perfbot run\n-->",
	} {
		ev := payload(t, func(ev map[string]any) {
			c := ev["comment"].(map[string]any)
			c["id"], c["body"] = 7000+i, body
		})
		resp, text := f.post(t, fmt.Sprintf("code-%d", i), "application/json", sign([]byte("s3cret"), ev), bytes.NewReader(ev))
		if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusAccepted || strings.TrimSpace(text) != "ignored" {
			t.Errorf("%q: %d %q, want ignored", body, resp.StatusCode, text)
		}
	}
	if reactions, replies := f.fake.snapshot(); len(f.queue.jobs) != 0 || len(reactions) != 0 || len(replies) != 0 {
		t.Errorf("jobs %v, reactions %v, replies %v; want none", f.queue.jobs, reactions, replies)
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

func TestWebhookPermissions(t *testing.T) {
	tests := []struct {
		user string
		want Outcome
	}{
		{"maintainer", Queued},
		{"writer", Queued},
		{"release-bot", Queued}, // on the allow list, no permission needed
		{"drive-by", Refused},   // read access only
	}
	f := newFixture(t)
	for i, tt := range tests {
		body := payload(t, setComment(tt.user, float64(100+i), ""))
		resp := f.deliver(t, "perm-"+tt.user, sign([]byte("s3cret"), body), body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: status %d", tt.user, resp.StatusCode)
		}
	}
	reactions, replies := f.fake.snapshot()
	if f.queue.new != 3 || len(reactions) != 3 {
		t.Errorf("queued %d, reactions %v; want 3 each", f.queue.new, reactions)
	}
	if len(replies) != 1 || !strings.Contains(replies[0], "@drive-by") || !strings.Contains(replies[0], "write access") {
		t.Errorf("replies = %q, want one polite refusal to drive-by", replies)
	}
	for _, j := range f.queue.jobs {
		if j.Requester == "drive-by" {
			t.Errorf("refused user's job was queued: %+v", j)
		}
	}
}

func TestHandleCommentCases(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	pr := Issue{Number: 7, Title: "t", PullRequest: true}
	tests := []struct {
		name      string
		issue     Issue
		comment   Comment
		want      Outcome
		wantReply string
	}{
		{"no command", pr, Comment{ID: 1, Body: "LGTM", User: User{Login: "writer"}}, Ignored, ""},
		{"bot", pr, Comment{ID: 2, Body: "/perfbot run", User: User{Login: "perfbot", Type: "Bot"}}, Ignored, ""},
		{"issue", Issue{Number: 8}, Comment{ID: 3, Body: "/perfbot run", User: User{Login: "writer"}}, Ignored, "pull requests"},
		{"bad command", pr, Comment{ID: 4, Body: "/perfbot bench", User: User{Login: "writer"}}, Invalid, "unknown command"},
		{"bad base", pr, Comment{ID: 5, Body: "/perfbot run base=$(rm)", User: User{Login: "writer"}}, Invalid, "not a valid ref"},
		{"all suites", pr, Comment{ID: 6, Body: "/perfbot run", User: User{Login: "writer"}}, Queued, ""},
	}
	for _, tt := range tests {
		_, before := f.fake.snapshot()
		got, err := f.intake.HandleComment(ctx, "acme/store", tt.issue, tt.comment)
		if err != nil || got != tt.want {
			t.Errorf("%s: outcome %q, %v; want %q", tt.name, got, err, tt.want)
		}
		_, after := f.fake.snapshot()
		if tt.wantReply == "" && len(after) != len(before) {
			t.Errorf("%s: unexpected reply %q", tt.name, after[len(after)-1])
		}
		if tt.wantReply != "" && (len(after) != len(before)+1 || !strings.Contains(after[len(after)-1], tt.wantReply)) {
			t.Errorf("%s: replies %q, want one containing %q", tt.name, after[len(before):], tt.wantReply)
		}
	}
}

func TestParseCommand(t *testing.T) {
	tests := []struct {
		body   string
		ok     bool
		err    bool
		suites []string
		base   string
	}{
		{"/perfbot run", true, false, nil, ""},
		{"hello\n/perfbot run wal cache base=release/2.5\nthanks", true, false, []string{"wal", "cache"}, "release/2.5"},
		{"/perfbot", true, true, nil, ""},
		{"/perfbot run ../x", true, true, nil, ""},
		{"/perfbot run base=a..b", true, true, nil, ""},
		{"please /perfbot run", false, false, nil, ""},
		{"look:\n```\n/perfbot run\n```", false, false, nil, ""},
		{"look:\n~~~~ sh\n/perfbot run\n~~~\n/perfbot run x\n~~~~", false, false, nil, ""},
		{"```\n/perfbot run a\n```\n/perfbot run b", true, false, []string{"b"}, ""},
		{"unclosed\n```go\n/perfbot run", false, false, nil, ""},
		{"code:\n\n    /perfbot run", false, false, nil, ""},
		{"\t/perfbot run", false, false, nil, ""},
		{"<!-- /perfbot run -->", false, false, nil, ""},
		{"hidden <!--\n/perfbot run\n--> shown", false, false, nil, ""},
		{"<!-- never closed\n/perfbot run", false, false, nil, ""},
		{"<!-- a -->\n/perfbot run c", true, false, []string{"c"}, ""},
		{"   /perfbot run d", true, false, []string{"d"}, ""},
		{"> /perfbot run", false, false, nil, ""},
		{"", false, false, nil, ""},
	}
	for _, tt := range tests {
		cmd, ok, err := ParseCommand(tt.body, "/perfbot")
		if ok != tt.ok || (err != nil) != tt.err {
			t.Errorf("ParseCommand(%q) ok=%v err=%v", tt.body, ok, err)
			continue
		}
		if strings.Join(cmd.Suites, ",") != strings.Join(tt.suites, ",") || cmd.Base != tt.base {
			t.Errorf("ParseCommand(%q) = %+v", tt.body, cmd)
		}
	}
}

// TestTriggerPolicy checks that the intake follows the trigger policy it
// is given, logs every decision with its reason, and answers a refusal
// with the policy's polite text.
func TestTriggerPolicy(t *testing.T) {
	pr := Issue{Number: 9, Title: "t", PullRequest: true}
	tests := []struct {
		name     string
		triggers config.Triggers
		user     string
		want     Outcome
		log      string
	}{
		{"committer", config.Triggers{Allow: []string{"committers"}}, "writer", Queued, "writer has write permission"},
		{"reader", config.Triggers{Allow: []string{"committers"}}, "drive-by", Refused, "drive-by has only read permission"},
		{"listed", config.Triggers{Allow: []string{"release-bot"}}, "release-bot", Queued, "release-bot is listed"},
		{"names only: a writer is not enough", config.Triggers{Allow: []string{"release-bot"}}, "writer", Refused, "the only way to start runs"},
		{"a JIRA name is not a GitHub login", config.Triggers{Allow: []string{"committers", "jira:drive-by"}}, "drive-by", Refused, "only read"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			var logs bytes.Buffer
			p := tt.triggers.Policy()
			f.intake.Policy = &p
			f.intake.Log = slog.New(slog.NewTextHandler(&logs, nil))
			got, err := f.intake.HandleComment(context.Background(), "acme/store", pr,
				Comment{ID: int64(500 + i), Body: "/perfbot run", User: User{Login: tt.user}})
			if err != nil || got != tt.want {
				t.Fatalf("outcome %q, %v; want %q", got, err, tt.want)
			}
			if !strings.Contains(logs.String(), tt.log) || !strings.Contains(logs.String(), "trigger policy: "+map[Outcome]string{Queued: "allowed", Refused: "refused"}[tt.want]) {
				t.Errorf("log does not record the decision %q:\n%s", tt.log, logs.String())
			}
			_, replies := f.fake.snapshot()
			if tt.want == Refused {
				if f.queue.new != 0 || len(replies) != 1 || !strings.Contains(replies[0], "Thank you for the request, @"+tt.user) {
					t.Errorf("queued %d, replies %q; want nothing queued and one polite refusal", f.queue.new, replies)
				}
			} else if f.queue.new != 1 || len(replies) != 0 {
				t.Errorf("queued %d, replies %q; want one job and no reply", f.queue.new, replies)
			}
		})
	}
}

func TestParseFalseAlarm(t *testing.T) {
	tests := []struct {
		body    string
		ok, err bool
		benches []string
		reason  string
	}{
		{"/perfbot false-alarm Checksum", true, false, []string{"Checksum"}, ""},
		{"thanks\n/perfbot false-alarm Checksum-2 Scan/threads=10 -- the runner was busy  \nbye", true, false,
			[]string{"Checksum-2", "Scan/threads=10"}, "the runner was busy"},
		{"/perfbot false-alarm MemFetchTasksBenchmark.run --", true, false, []string{"MemFetchTasksBenchmark.run"}, ""},
		{"/perfbot false-alarm", true, true, nil, ""},
		{"/perfbot false-alarm -- only a reason", true, true, nil, ""},
		{"/perfbot false-alarm <b>x</b>", true, true, nil, ""},
		{"/perfbot false-alarm @alice", true, true, nil, ""},
		{"look:\n```\n/perfbot false-alarm Checksum\n```", false, false, nil, ""},
		{"<!-- /perfbot false-alarm Checksum -->", false, false, nil, ""},
		{"    /perfbot false-alarm Checksum", false, false, nil, ""},
		{"> /perfbot false-alarm Checksum", false, false, nil, ""},
		{"please /perfbot false-alarm Checksum", false, false, nil, ""},
	}
	for _, tt := range tests {
		cmd, ok, err := ParseCommand(tt.body, "/perfbot")
		if ok != tt.ok || (err != nil) != tt.err {
			t.Errorf("ParseCommand(%q) ok=%v err=%v", tt.body, ok, err)
			continue
		}
		if !ok || err != nil {
			continue
		}
		if cmd.Verb != VerbFalseAlarm || strings.Join(cmd.Benches, ",") != strings.Join(tt.benches, ",") || cmd.Reason != tt.reason {
			t.Errorf("ParseCommand(%q) = %+v", tt.body, cmd)
		}
	}
	long := "/perfbot false-alarm A -- " + strings.Repeat("é", 400)
	if cmd, _, err := ParseCommand(long, "/perfbot"); err != nil || len(cmd.Reason) > 500 || !utf8.ValidString(cmd.Reason) {
		t.Errorf("a long reason: %d bytes, valid %v, %v", len(cmd.Reason), utf8.ValidString(cmd.Reason), err)
	}
}
