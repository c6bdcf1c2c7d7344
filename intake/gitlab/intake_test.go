package gitlab

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perfbot/perfbot/internal/fake/gitlabfake"
	"github.com/perfbot/perfbot/internal/storetest"
	"github.com/perfbot/perfbot/job/jobspec"
	"github.com/perfbot/perfbot/store"
	"github.com/perfbot/perfbot/target"
	rgitlab "github.com/perfbot/perfbot/venue/gitlab"
)

const (
	token  = "glpat-intake0123456789"
	secret = "hook-s3cret"
	sha    = "0123456789abcdef0123456789abcdef01234567"
)

// queue records queued jobs, a key queued once.
type queue struct {
	mu   sync.Mutex
	jobs []jobspec.Spec
}

func (q *queue) Enqueue(_ context.Context, s jobspec.Spec) (int64, bool, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, j := range q.jobs {
		if j.Key == s.Key {
			return 0, true, nil
		}
	}
	q.jobs = append(q.jobs, s)
	return int64(len(q.jobs)), false, nil
}

type control struct{ cancelled []string }

func (c *control) Cancel(_ context.Context, to target.Target) (int, error) {
	c.cancelled = append(c.cancelled, to.String())
	return 2, nil
}

func (c *control) Status(context.Context, target.Target) (string, error) {
	return "running: acme/db/store!12: <b>hi</b> @all %1 $2 ~bug: starting", nil
}

type fixture struct {
	fake  *gitlabfake.Server
	queue *queue
	ctl   *control
	in    *Intake
	n     int
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	fake := gitlabfake.New(token, "perfbot")
	t.Cleanup(fake.Close)
	fake.AddMR(gitlabfake.MR{Project: "acme/db/store", IID: 12, Title: "wal: batch fsync", SHA: sha})
	fake.SetMember("acme/db/store", 21, 30) // alice, Developer
	fake.SetMember("acme/db/store", 22, 20) // rita, Reporter
	c, err := rgitlab.New(rgitlab.Config{BaseURL: fake.URL, Token: token})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{fake: fake, queue: &queue{}, ctl: &control{}}
	f.in = &Intake{Client: c, Queue: f.queue, Seen: storetest.SQLite(t), Control: f.ctl, Secret: []byte(secret),
		Project: "acme/db/store", Login: "perfbot", Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	return f
}

// payload reads a testdata payload and changes it: set maps a dotted
// path to its new value.
func payload(t *testing.T, file string, set map[string]any) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/" + file)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	for path, v := range set {
		m := doc
		parts := strings.Split(path, ".")
		for _, p := range parts[:len(parts)-1] {
			m = m[p].(map[string]any)
		}
		m[parts[len(parts)-1]] = v
	}
	out, _ := json.Marshal(doc)
	return out
}

// deliver sends one delivery to the webhook, with a fresh event UUID
// unless uuid is given.
func (f *fixture) deliver(t *testing.T, event, tok string, body []byte, uuid string) *httptest.ResponseRecorder {
	t.Helper()
	if uuid == "" {
		f.n++
		uuid = fmt.Sprintf("00000000-0000-4000-8000-%012d", f.n)
	}
	r := httptest.NewRequest(http.MethodPost, "/webhook/gitlab", strings.NewReader(string(body)))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("X-Gitlab-Event", event)
	r.Header.Set("X-Gitlab-Event-UUID", uuid)
	if tok != "" {
		r.Header.Set("X-Gitlab-Token", tok)
	}
	w := httptest.NewRecorder()
	f.in.ServeHTTP(w, r)
	return w
}

func note(user string, id int64, text string, noteID int64) map[string]any {
	return map[string]any{"user.username": user, "user.id": id, "object_attributes.note": text, "object_attributes.id": noteID}
}

// readSpy fails the test when the body is read.
type readSpy struct{ read bool }

func (s *readSpy) Read(p []byte) (int, error) { s.read = true; return 0, io.EOF }

func TestWrongTokenRefusedBeforeReading(t *testing.T) {
	f := newFixture(t)
	for _, tok := range []string{"", "hook-s3creT", secret + "x"} {
		spy := &readSpy{}
		r := httptest.NewRequest(http.MethodPost, "/webhook/gitlab", spy)
		r.Header.Set("X-Gitlab-Event", "Note Hook")
		if tok != "" {
			r.Header.Set("X-Gitlab-Token", tok)
		}
		w := httptest.NewRecorder()
		f.in.ServeHTTP(w, r)
		if w.Code != http.StatusUnauthorized || spy.read {
			t.Errorf("token %q: %d, body read %v", tok, w.Code, spy.read)
		}
	}
	// An intake without a secret accepts nothing.
	f.in.Secret = nil
	if w := f.deliver(t, "Note Hook", "", payload(t, "note_merge_request.json", nil), ""); w.Code != http.StatusUnauthorized {
		t.Errorf("no secret: %d", w.Code)
	}
	if len(f.queue.jobs) != 0 || len(f.fake.Requests()) != 0 {
		t.Errorf("jobs %v, API requests %v", f.queue.jobs, f.fake.Requests())
	}
}

func TestBodyLimits(t *testing.T) {
	f := newFixture(t)
	r := httptest.NewRequest(http.MethodPost, "/webhook/gitlab", strings.NewReader("{}"))
	r.ContentLength = maxPayload + 1
	r.Header.Set("X-Gitlab-Token", secret)
	w := httptest.NewRecorder()
	f.in.ServeHTTP(w, r)
	if w.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("declared too large: %d", w.Code)
	}
	r = httptest.NewRequest(http.MethodPost, "/webhook/gitlab", io.MultiReader(strings.NewReader(`{"a":"`), strings.NewReader(strings.Repeat("x", maxPayload))))
	r.ContentLength = -1
	r.Header.Set("X-Gitlab-Token", secret)
	r.Header.Set("X-Gitlab-Event", "Note Hook")
	w = httptest.NewRecorder()
	f.in.ServeHTTP(w, r)
	if w.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("streamed too large: %d", w.Code)
	}
	if w := f.deliver(t, "Note Hook", secret, []byte("{not json"), ""); w.Code != http.StatusBadRequest {
		t.Errorf("bad JSON: %d", w.Code)
	}
	if w := f.deliver(t, "Pipeline Hook", secret, []byte("{}"), ""); w.Code != http.StatusAccepted {
		t.Errorf("other event: %d", w.Code)
	}
}

// TestRunCommand: a Developer's "/perfbot run wal" queues one job for the
// merge request's head ref, after reading the access level with the
// project path URL-encoded; the same delivery again is a replay.
func TestRunCommand(t *testing.T) {
	f := newFixture(t)
	body := payload(t, "note_merge_request.json", nil)
	w := f.deliver(t, "Note Hook", secret, body, "11111111-2222-4333-8444-555555555555")
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "queued") {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	if len(f.queue.jobs) != 1 {
		t.Fatalf("jobs %+v", f.queue.jobs)
	}
	j := f.queue.jobs[0]
	if j.Key != "gitlab:acme/db/store!12/note/1244" || j.Targets[0].String() != "gitlab:acme/db/store!12" || j.CandidateRef != "merge-requests/12/head" ||
		strings.Join(j.Suites, ",") != "wal" || j.Requester != "alice" || j.Source != "gitlab" {
		t.Errorf("job %+v", j)
	}
	if got := strings.Join(f.fake.Requests(), "\n"); got != "GET /api/v4/projects/acme%2Fdb%2Fstore/members/all/21" {
		t.Errorf("requests:\n%s", got)
	}
	w = f.deliver(t, "Note Hook", secret, body, "11111111-2222-4333-8444-555555555555")
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "already handled") || len(f.queue.jobs) != 1 {
		t.Errorf("replay: %d %s, %d jobs", w.Code, w.Body, len(f.queue.jobs))
	}
}

// TestReporterRefusedOnce: a Reporter's commands are refused with one
// note; the second refusal within the hour is not posted.
func TestReporterRefusedOnce(t *testing.T) {
	f := newFixture(t)
	for i, text := range []string{"/perfbot run", "/perfbot run wal", "/perfbot cancel"} {
		w := f.deliver(t, "Note Hook", secret, payload(t, "note_merge_request.json", note("rita", 22, text, int64(2000+i))), "")
		want := "throttled"
		if i == 0 {
			want = "refused"
		}
		if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), want) {
			t.Errorf("%q: %d %s, want %s", text, w.Code, w.Body, want)
		}
	}
	notes := f.fake.Notes("acme/db/store", 12)
	if len(notes) != 1 || !strings.Contains(notes[0].Body, "@rita") || !strings.Contains(notes[0].Body, "Developer role or more") {
		t.Fatalf("notes %+v", notes)
	}
	if len(f.queue.jobs) != 0 || len(f.ctl.cancelled) != 0 {
		t.Errorf("jobs %v, cancelled %v", f.queue.jobs, f.ctl.cancelled)
	}
	// Someone who is no member at all is refused as well.
	w := f.deliver(t, "Note Hook", secret, payload(t, "note_merge_request.json", note("eve", 99, "/perfbot run", 3000)), "")
	if !strings.Contains(w.Body.String(), "refused") || len(f.queue.jobs) != 0 {
		t.Errorf("non-member: %d %s", w.Code, w.Body)
	}
}

func TestCommands(t *testing.T) {
	f := newFixture(t)
	cases := []struct {
		user   string
		id     int64
		text   string
		result string
		reply  string
	}{
		{"rita", 22, "/perfbot help", "answered", "@rita perfbot commands"},
		{"alice", 21, "/perfbot status", "answered", "@alice running:\u200b acme/db/store\\!12:\u200b &lt;b&gt;hi&lt;/b&gt; @\u200ball %\u200b1 $\u200b2 \\~bug:\u200b starting"},
		{"alice", 21, "/perfbot cancel", "answered", "@alice cancelled 2 benchmark jobs of this merge request."},
		{"alice", 21, "/perfbot frobnicate", "invalid", "@alice unknown command"},
		{"alice", 21, "looks good", "ignored", ""},
		{"perfbot", 5, "/perfbot run", "ignored", ""},
	}
	for i, c := range cases {
		before := len(f.fake.Notes("acme/db/store", 12))
		w := f.deliver(t, "Note Hook", secret, payload(t, "note_merge_request.json", note(c.user, c.id, c.text, int64(4000+i))), "")
		if !strings.Contains(w.Body.String(), c.result) {
			t.Errorf("%q: %d %s, want %s", c.text, w.Code, w.Body, c.result)
		}
		notes := f.fake.Notes("acme/db/store", 12)
		switch {
		case c.reply == "" && len(notes) != before:
			t.Errorf("%q: replied %q", c.text, notes[len(notes)-1].Body)
		case c.reply != "" && (len(notes) != before+1 || !strings.HasPrefix(notes[len(notes)-1].Body, c.reply)):
			t.Errorf("%q: notes %+v, want a reply %q", c.text, notes, c.reply)
		}
	}
	if len(f.ctl.cancelled) != 1 || f.ctl.cancelled[0] != "gitlab:acme/db/store!12" {
		t.Errorf("cancelled %v", f.ctl.cancelled)
	}
	// Another project's note is not ours.
	w := f.deliver(t, "Note Hook", secret, payload(t, "note_merge_request.json", map[string]any{"project.path_with_namespace": "other/store"}), "")
	if !strings.Contains(w.Body.String(), "ignored") || len(f.queue.jobs) != 0 {
		t.Errorf("other project: %s", w.Body)
	}
}

// TestNoteOnceAndPinned: a "/perfbot run" note's job measures the head
// the note event names (merge_request.last_commit.id); the same note
// delivered again under a new X-Gitlab-Event-UUID, after the queue forgot
// its job, is seen, not run again; an edited note and a command in a code
// block are not commands.
func TestNoteOnceAndPinned(t *testing.T) {
	f := newFixture(t)
	body := payload(t, "note_merge_request.json", note("alice", 21, "/perfbot run wal", 5001))
	if w := f.deliver(t, "Note Hook", secret, body, ""); !strings.Contains(w.Body.String(), "queued") {
		t.Fatalf("note: %d %s", w.Code, w.Body)
	}
	if len(f.queue.jobs) != 1 || f.queue.jobs[0].CandidateCommit != sha {
		t.Fatalf("jobs %+v, want one pinned to %s", f.queue.jobs, sha)
	}
	f.queue.mu.Lock()
	f.queue.jobs = nil // the queue's retention passed
	f.queue.mu.Unlock()
	if w := f.deliver(t, "Note Hook", secret, body, ""); !strings.Contains(w.Body.String(), "seen") || len(f.queue.jobs) != 0 {
		t.Errorf("the same note under a new event UUID: %d %s, jobs %+v; want seen and no job", w.Code, w.Body, f.queue.jobs)
	}
	edited := payload(t, "note_merge_request.json", map[string]any{"user.username": "alice", "user.id": 21,
		"object_attributes.note": "/perfbot run", "object_attributes.id": 5002, "object_attributes.action": "update"})
	fenced := payload(t, "note_merge_request.json", note("alice", 21, "```\n/perfbot run\n```", 5003))
	for name, b := range map[string][]byte{"edited": edited, "fenced": fenced} {
		if w := f.deliver(t, "Note Hook", secret, b, ""); !strings.Contains(w.Body.String(), "ignored") || len(f.queue.jobs) != 0 {
			t.Errorf("%s note: %d %s, jobs %+v; want ignored", name, w.Code, w.Body, f.queue.jobs)
		}
	}
}

// TestMergeRequestHook: with merge_requests on, an opened merge request
// runs once per head commit, a push of new commits runs again, a draft
// and an edit of the title do not, nor a Reporter's merge request.
func TestMergeRequestHook(t *testing.T) {
	f := newFixture(t)
	open := payload(t, "merge_request.json", nil)
	if w := f.deliver(t, "Merge Request Hook", secret, open, ""); !strings.Contains(w.Body.String(), "ignored") || len(f.queue.jobs) != 0 {
		t.Fatalf("merge_requests off: %s", w.Body)
	}
	f.in.MergeRequests = true
	if w := f.deliver(t, "Merge Request Hook", secret, open, ""); !strings.Contains(w.Body.String(), "queued") {
		t.Fatalf("open: %d %s", w.Code, w.Body)
	}
	// GitLab sends the same event again (a new UUID): the commit ran.
	if w := f.deliver(t, "Merge Request Hook", secret, open, ""); !strings.Contains(w.Body.String(), "seen") {
		t.Errorf("again: %s", w.Body)
	}
	const sha2 = "89abcdef0123456789abcdef0123456789abcdef"
	push := payload(t, "merge_request.json", map[string]any{"object_attributes.action": "update", "object_attributes.oldrev": sha,
		"object_attributes.last_commit": map[string]any{"id": sha2}})
	if w := f.deliver(t, "Merge Request Hook", secret, push, ""); !strings.Contains(w.Body.String(), "queued") {
		t.Errorf("push: %s", w.Body)
	}
	for name, set := range map[string]map[string]any{
		"title edit": {"object_attributes.action": "update"},
		"draft":      {"object_attributes.draft": true, "object_attributes.last_commit": map[string]any{"id": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}},
		"reporter":   {"user.id": 22, "user.username": "rita", "object_attributes.last_commit": map[string]any{"id": "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"}},
	} {
		w := f.deliver(t, "Merge Request Hook", secret, payload(t, "merge_request.json", set), "")
		if strings.Contains(w.Body.String(), "queued") {
			t.Errorf("%s queued: %s", name, w.Body)
		}
	}
	if len(f.queue.jobs) != 2 || f.queue.jobs[0].Key != "gitlab:acme/db/store!12/commit/"+sha || f.queue.jobs[1].Key != "gitlab:acme/db/store!12/commit/"+sha2 {
		t.Errorf("jobs %+v", f.queue.jobs)
	}
	if n := f.fake.Notes("acme/db/store", 12); len(n) != 0 {
		t.Errorf("automatic runs posted notes: %+v", n)
	}
}

// TestMergeHookRecordsLanding: a Merge Request Hook with action merge,
// in GitLab's documented shape, reaches OnMerged with the project, the
// IID and merge_commit_sha; without a tracked branch (no OnMerged), one
// without merge_commit_sha and one of another project do not. A failing
// OnMerged is answered 500 so that GitLab delivers it again.
func TestMergeHookRecordsLanding(t *testing.T) {
	f := newFixture(t)
	const merged = "fedcba9876543210fedcba9876543210fedcba98"
	merge := payload(t, "merge_request.json", map[string]any{"object_attributes.action": "merge",
		"object_attributes.state": "merged", "object_attributes.merge_commit_sha": merged})
	if w := f.deliver(t, "Merge Request Hook", secret, merge, ""); w.Code != http.StatusAccepted || !strings.Contains(w.Body.String(), "ignored") {
		t.Errorf("no branch tracked: %d %s", w.Code, w.Body)
	}
	var got []string
	var fail error
	f.in.OnMerged = func(ctx context.Context, project string, iid int64, commit string) error {
		got = append(got, fmt.Sprintf("%s!%d@%s", project, iid, commit))
		return fail
	}
	if w := f.deliver(t, "Merge Request Hook", secret, merge, ""); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "merge recorded") {
		t.Errorf("merge: %d %s", w.Code, w.Body)
	}
	for name, set := range map[string]map[string]any{
		"no merge_commit_sha":  {"object_attributes.action": "merge", "object_attributes.merge_commit_sha": nil},
		"bad merge_commit_sha": {"object_attributes.action": "merge", "object_attributes.merge_commit_sha": "HEAD; rm -rf /"},
		"another project": {"object_attributes.action": "merge", "object_attributes.merge_commit_sha": merged,
			"project": map[string]any{"path_with_namespace": "acme/other"}},
		"closed": {"object_attributes.action": "close", "object_attributes.merge_commit_sha": merged},
	} {
		if w := f.deliver(t, "Merge Request Hook", secret, payload(t, "merge_request.json", set), ""); w.Code == http.StatusOK {
			t.Errorf("%s: %d %s", name, w.Code, w.Body)
		}
	}
	fail = errors.New("store down")
	if w := f.deliver(t, "Merge Request Hook", secret, merge, ""); w.Code != http.StatusInternalServerError {
		t.Errorf("failing OnMerged: %d %s", w.Code, w.Body)
	}
	if want := "acme/db/store!12@" + merged; len(got) != 2 || got[0] != want || got[1] != want {
		t.Errorf("OnMerged calls %q, want %q twice", got, want)
	}
	if len(f.queue.jobs) != 0 {
		t.Errorf("a merge queued jobs: %+v", f.queue.jobs)
	}
}

// TestFalseAlarmNote: "/perfbot false-alarm BENCH -- REASON" on a merge
// request marks its latest finished run's verdict in the store, by the
// note's author, at the time it arrived; a Reporter (below the role that
// may start runs) is refused and marks nothing.
func TestFalseAlarmNote(t *testing.T) {
	f := newFixture(t)
	st := f.in.Seen.(*store.Store)
	f.in.Marks = storetest.Marker{Store: st}
	run := storetest.AnsweredRun(t, st, "gitlab", "acme/db/store!12", "ci-1")
	before := time.Now().Add(-time.Second)

	w := f.deliver(t, "Note Hook", secret, payload(t, "note_merge_request.json", note("rita", 22, "/perfbot false-alarm Checksum", 6001)), "")
	if !strings.Contains(w.Body.String(), "refused") {
		t.Errorf("a Reporter's mark: %d %s, want refused", w.Code, w.Body)
	}
	w = f.deliver(t, "Note Hook", secret, payload(t, "note_merge_request.json", note("alice", 21, "/perfbot false-alarm Checksum -- the runner was busy", 6002)), "")
	if !strings.Contains(w.Body.String(), "answered") {
		t.Errorf("a Developer's mark: %d %s, want answered", w.Code, w.Body)
	}
	marks, err := st.FalseAlarmsOfRun(context.Background(), run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(marks) != 1 {
		t.Fatalf("marks %+v, want one, alice's", marks)
	}
	m := marks[0]
	if m.By != "alice" || m.Venue != "gitlab" || m.Host != "ci-1" || m.Key.Benchmark != "Checksum-2" || m.Verdict != "worse" ||
		m.Reason != "the runner was busy" || m.At.Before(before) {
		t.Errorf("mark %+v", m)
	}
	notes := f.fake.Notes("acme/db/store", 12)
	if last := notes[len(notes)-1].Body; !strings.HasPrefix(last, "@alice marked 1 verdict of run") || !strings.Contains(last, "Checksum-2") {
		t.Errorf("reply %q", last)
	}
}
