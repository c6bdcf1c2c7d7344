package github

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/perfbot/perfbot/target"
)

// fakeControl records the cancel and status requests it answers.
type fakeControl struct {
	mu      sync.Mutex
	cancels []string
	status  []string
}

func (c *fakeControl) Cancel(ctx context.Context, to target.Target) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cancels = append(c.cancels, to.String())
	return 2, nil
}

func (c *fakeControl) Status(ctx context.Context, to target.Target) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.status = append(c.status, to.String())
	return "running: acme/store#7: <img src=https://evil.example/x> @everyone \u202eevil: starting\nqueued: acme/store#7: [x](https://evil.example) **bold**: position 2", nil
}

// TestCommands: help answers anyone once an hour with the usage; cancel
// and status act on the pull request's target for users who may start
// runs and are refused to others; a malformed command gets the reason.
func TestCommands(t *testing.T) {
	f := newFixture(t)
	ctl := &fakeControl{}
	f.intake.Control = ctl
	ctx := context.Background()
	pr := Issue{Number: 7, Title: "t", PullRequest: true}
	tests := []struct {
		name, user, body string
		want             Outcome
		reply            string // "" for no reply
	}{
		{"help", "drive-by", "/perfbot help", Answered, "`/perfbot cancel`: cancel this pull request's queued and running benchmark jobs"},
		{"help again within the hour", "drive-by", "/perfbot help", Throttled, ""},
		{"cancel by a reader", "drive-by", "/perfbot cancel", Refused, "Thank you for the request, @drive-by"},
		{"status by a writer", "writer", "/perfbot status", Answered, "@writer running:\u200b acme/store#\u200b7:\u200b &lt;img src=https:\u200b//evil.example/x&gt; @\u200beveryone  evil:\u200b starting\n" +
			"queued:\u200b acme/store#\u200b7:\u200b \\[x\\]\\(https:\u200b//evil.example\\) \\*\\*bold\\*\\*:\u200b position 2"},
		{"cancel by a writer", "writer", "please stop\n/perfbot cancel\n", Answered, "@writer cancelled 2 benchmark jobs of this pull request."},
		{"arguments to cancel", "writer", "/perfbot cancel all", Invalid, "takes no arguments"},
		{"unknown verb", "writer", "/perfbot @everyone", Invalid, "unknown command; write `/perfbot help`"},
	}
	for i, tt := range tests {
		_, before := f.fake.snapshot()
		got, err := f.intake.HandleComment(ctx, "acme/store", pr, Comment{ID: int64(900 + i), Body: tt.body, User: User{Login: tt.user}})
		if err != nil || got != tt.want {
			t.Errorf("%s: outcome %q, %v; want %q", tt.name, got, err, tt.want)
			continue
		}
		_, after := f.fake.snapshot()
		switch {
		case tt.reply == "" && len(after) != len(before):
			t.Errorf("%s: unexpected reply %q", tt.name, after[len(after)-1])
		case tt.reply != "" && (len(after) != len(before)+1 || !strings.Contains(after[len(after)-1], tt.reply)):
			t.Errorf("%s: replies %q, want one containing %q", tt.name, after[len(before):], tt.reply)
		}
		if strings.Contains(strings.Join(after[len(before):], ""), "@everyone") {
			t.Errorf("%s: the reply repeats the comment's mention", tt.name)
		}
	}
	if strings.Join(ctl.cancels, " ") != "github:acme/store#7" || strings.Join(ctl.status, " ") != "github:acme/store#7" {
		t.Errorf("cancels %q, status %q: want one each, for github:acme/store#7", ctl.cancels, ctl.status)
	}
	if f.queue.new != 0 {
		t.Errorf("%d jobs queued by commands that start none", f.queue.new)
	}
}

// deliverEvent posts a signed JSON delivery of event.
func (f *fixture) deliverEvent(t *testing.T, event, delivery string, body []byte) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, f.server.URL, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-GitHub-Event", event)
	req.Header.Set("X-GitHub-Delivery", delivery)
	req.Header.Set("X-Hub-Signature-256", sign([]byte("s3cret"), body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	text, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, strings.TrimSpace(string(text))
}

// TestCheckRunRerequested: "Re-run" on perfbot's check run (or its suite)
// queues a new run of the pull request under a key of its own per
// delivery, after the same permission check as a comment; other actions,
// other apps' check runs and other events are acknowledged and ignored.
func TestCheckRunRerequested(t *testing.T) {
	f := newFixture(t)
	f.intake.CheckName = "perfbot"
	data, err := os.ReadFile("testdata/check_run_rerequested.json")
	if err != nil {
		t.Fatal(err)
	}
	edit := func(fn func(ev map[string]any)) []byte {
		var ev map[string]any
		if err := json.Unmarshal(data, &ev); err != nil {
			t.Fatal(err)
		}
		fn(ev)
		out, _ := json.Marshal(ev)
		return out
	}
	suite := edit(func(ev map[string]any) {
		ev["check_suite"] = ev["check_run"].(map[string]any)["check_suite"]
		delete(ev, "check_run")
	})
	// Each click on "Re-run" re-runs a check run that completed since the
	// last click.
	again := func(completed string, fn func(ev map[string]any)) []byte {
		return edit(func(ev map[string]any) {
			ev["check_run"].(map[string]any)["completed_at"] = completed
			if fn != nil {
				fn(ev)
			}
		})
	}
	cases := []struct {
		name, event, delivery string
		body                  []byte
		code                  int
		text                  string
	}{
		{"rerun", "check_run", "d-1", data, http.StatusOK, "queued"},
		{"rerun again", "check_run", "d-2", again("2026-11-30T09:41:55Z", nil), http.StatusOK, "queued"},
		{"the same click under a new delivery id", "check_run", "d-2b", again("2026-11-30T09:41:55Z", nil), http.StatusOK, "seen"},
		{"suite rerun", "check_suite", "d-3", suite, http.StatusOK, "queued"},
		{"another app's check", "check_run", "d-4", edit(func(ev map[string]any) { ev["check_run"].(map[string]any)["name"] = "ci" }), http.StatusAccepted, `check run "ci" is not perfbot's`},
		{"created", "check_run", "d-5", edit(func(ev map[string]any) { ev["action"] = "created" }), http.StatusAccepted, `check_run action "created" ignored`},
		{"fork head", "check_run", "d-6", edit(func(ev map[string]any) { ev["check_run"].(map[string]any)["pull_requests"] = []any{} }), http.StatusAccepted, "check run names no pull request of this repository"},
		{"reader", "check_run", "d-7", again("2026-11-30T10:41:55Z", func(ev map[string]any) { ev["sender"].(map[string]any)["login"] = "drive-by" }), http.StatusOK, "refused"},
		{"other event", "deployment", "d-8", []byte(`{"action":"created"}`), http.StatusAccepted, `event "deployment" ignored`},
		{"unknown event", "perfbot_test", "d-9", []byte(`{}`), http.StatusAccepted, `event "perfbot_test" ignored`},
		{"malformed", "check_run", "d-10", []byte(`{"action": 5}`), http.StatusBadRequest, "check_run payload"},
		{"no check run", "check_run", "d-11", []byte(`{"action": "rerequested", "repository": {"full_name": "acme/store"}}`), http.StatusBadRequest, "check_run payload without check_run"},
		{"no check suite", "check_suite", "d-12", []byte(`{"action": "rerequested", "repository": {"full_name": "acme/store"}}`), http.StatusBadRequest, "check_suite payload without check_suite"},
		{"no repository", "check_run", "d-13", edit(func(ev map[string]any) { delete(ev, "repository") }), http.StatusBadRequest, "without repository.full_name"},
		{"no comment", "issue_comment", "d-14", []byte(`{"action": "created", "repository": {"full_name": "acme/store"}}`), http.StatusBadRequest, "issue_comment payload without issue or comment"},
		{"no sender", "check_run", "d-15", edit(func(ev map[string]any) { delete(ev, "sender") }), http.StatusOK, "ignored"},
		{"ping", "ping", "d-16", []byte(`{"zen": "Keep it logically awesome.", "hook_id": 42}`), http.StatusOK, "pong"},
	}
	for _, c := range cases {
		code, text := f.deliverEvent(t, c.event, c.delivery, c.body)
		if code != c.code || !strings.Contains(text, c.text) {
			t.Errorf("%s: %d %q, want %d %q", c.name, code, text, c.code, c.text)
		}
	}
	if code, text := f.deliverEvent(t, "check_run", "d-1", data); code != http.StatusOK || text != "delivery already handled" {
		t.Errorf("replayed rerun: %d %q", code, text)
	}
	var keys []string
	for _, j := range f.queue.jobs {
		keys = append(keys, j.Key)
		if j.CandidateRef != "pull/12/head" || j.CandidateCommit != "9f1c2d3e4b5a69788796a5b4c3d2e1f0a9b8c7d6" || j.Requester != "maintainer" || strings.Join(target.Strings(j.Targets), " ") != "github:acme/store#12" {
			t.Errorf("job %+v: want pull/12/head at the check's head_sha for maintainer, answered on github:acme/store#12", j)
		}
	}
	if want := "github:acme/store#12/rerun/d-1 github:acme/store#12/rerun/d-2 github:acme/store#12/rerun/d-3"; strings.Join(keys, " ") != want {
		t.Errorf("jobs %q, want %q", keys, want)
	}
	if _, replies := f.fake.snapshot(); len(replies) != 1 || !strings.HasPrefix(replies[0], "12:Thank you for the request, @drive-by") {
		t.Errorf("replies %q, want one refusal on #12", replies)
	}
	if n := f.metrics.Counter("perfbot_webhook_deliveries_total", "result", "bad_payload"); n != 5 {
		t.Errorf("bad_payload deliveries counted %v, want 5", n)
	}
}

// TestDeliveriesWithNulls delivers the recorded issue_comment and
// check_run payloads with each field, at any depth, set to null or to a
// string: each is answered (no handler panics) and none queues a job
// for a user the payload does not name.
func TestDeliveriesWithNulls(t *testing.T) {
	f := newFixture(t)
	f.intake.CheckName = "perfbot"
	n := 0
	for _, c := range []struct{ event, file string }{
		{"issue_comment", "testdata/issue_comment.json"},
		{"check_run", "testdata/check_run_rerequested.json"},
	} {
		data, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		var paths [][]string
		var walk func(v any, path []string)
		walk = func(v any, path []string) {
			m, ok := v.(map[string]any)
			if !ok {
				return
			}
			for k, sub := range m {
				p := append(append([]string(nil), path...), k)
				paths = append(paths, p)
				walk(sub, p)
			}
		}
		var root any
		json.Unmarshal(data, &root)
		walk(root, nil)
		for _, p := range paths {
			for _, repl := range []any{nil, "x"} {
				var ev map[string]any
				json.Unmarshal(data, &ev)
				m := ev
				for _, k := range p[:len(p)-1] {
					m = m[k].(map[string]any)
				}
				m[p[len(p)-1]] = repl
				body, _ := json.Marshal(ev)
				n++
				code, text := f.deliverEvent(t, c.event, fmt.Sprintf("null-%d", n), body)
				if code == 0 || (code >= 500 && text != "internal error") {
					t.Errorf("%s with %s = %v: %d %q", c.event, strings.Join(p, "."), repl, code, text)
				}
			}
		}
	}
	for _, j := range f.queue.jobs {
		if j.Requester != "maintainer" {
			t.Errorf("job %+v queued for someone the payloads do not name", j)
		}
	}
	t.Logf("%d deliveries, %d jobs queued", n, len(f.queue.jobs))
}

// fakeMarks records the false-alarm marks it is asked for.
type fakeMarks struct {
	mu    sync.Mutex
	asked []string
}

func (m *fakeMarks) MarkFalseAlarm(ctx context.Context, to target.Target, who string, benches []string, reason string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.asked = append(m.asked, fmt.Sprintf("%s %s %s %q", to, who, strings.Join(benches, ","), reason))
	return "marked 1 verdict of run 3 a false alarm:\n- Checksum-2 <b>x</b> ns/op (worse, +49.0%) on host ci-1", nil
}

// TestFalseAlarmCommand: "/perfbot false-alarm" is for those who may start
// runs; theirs is handed to Marks for the pull request and acknowledged
// with an escaped reply; without Marks it is said to be unavailable.
func TestFalseAlarmCommand(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	pr := Issue{Number: 7, Title: "t", PullRequest: true}
	handle := func(id int64, user, body string) (Outcome, string) {
		t.Helper()
		_, before := f.fake.snapshot()
		got, err := f.intake.HandleComment(ctx, "acme/store", pr, Comment{ID: id, Body: body, User: User{Login: user}})
		if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		_, after := f.fake.snapshot()
		if len(after) != len(before)+1 {
			t.Fatalf("%s by %s: replies %q, want one", body, user, after[len(before):])
		}
		return got, after[len(after)-1]
	}
	if got, reply := handle(950, "writer", "/perfbot false-alarm Checksum"); got != Answered || !strings.Contains(reply, "is not available") {
		t.Errorf("without Marks: %q, %q", got, reply)
	}
	marks := &fakeMarks{}
	f.intake.Marks = marks
	if got, reply := handle(951, "drive-by", "/perfbot false-alarm Checksum"); got != Refused || !strings.Contains(reply, "Thank you for the request, @drive-by") {
		t.Errorf("by a reader: %q, %q", got, reply)
	}
	got, reply := handle(952, "writer", "not a regression\n/perfbot false-alarm Checksum Scan/threads=10 -- busy runner")
	if got != Answered || !strings.Contains(reply, "@writer marked 1 verdict of run 3 a false alarm") ||
		strings.Contains(reply, "<b>") || !strings.Contains(reply, "&lt;b&gt;") {
		t.Errorf("by a writer: %q, %q", got, reply)
	}
	if got, reply := handle(953, "writer", "/perfbot false-alarm"); got != Invalid || !strings.Contains(reply, "name the benchmarks") {
		t.Errorf("without a benchmark: %q, %q", got, reply)
	}
	if want := `github:acme/store#7 writer Checksum,Scan/threads=10 "busy runner"`; strings.Join(marks.asked, "|") != want {
		t.Errorf("marks asked %q, want %q", marks.asked, want)
	}
}
