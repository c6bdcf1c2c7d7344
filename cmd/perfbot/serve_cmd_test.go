package main

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"github.com/perfbot/perfbot/internal/gitrepo"
	"github.com/perfbot/perfbot/internal/testwait"
	"github.com/perfbot/perfbot/store"
)

// mainEnv makes the test binary run perfbot itself: "perfbot serve" runs
// each job as "perfbot compare" in a child process, which in these tests is
// this binary.
const mainEnv = "PERFBOT_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(mainEnv) == "1" {
		err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr)
		os.Exit(exitCode(err, os.Stderr))
	}
	code := m.Run()
	removeSharedCache()
	os.Exit(code)
}

// e2eGitHub fakes the GitHub REST endpoints that intake and posting use,
// following their documented shapes, and records the bot's comments.
type e2eGitHub struct {
	mu       sync.Mutex
	comments map[int64]string // id -> body, on pull request 12
	order    []int64
	created  int
	edits    int
	// first holds each comment's body as created, before any edit.
	first    []string
	statuses []string
	reacted  []string
	headSHA  string
	// polled are the repository's issue comments the poll lists (GET
	// /repos/acme/store/issues/comments), people's, on pull request 12.
	polled []e2eComment
	// lists counts the listings of polled.
	lists int
	// afterApproval, when set, runs once, right after a permission
	// lookup was answered with a role that may start runs (as a push
	// right after a maintainer's approval).
	afterApproval func()
	// authors holds the login of comments perfbot did not write.
	authors map[int64]string
	// permFailures is how many permission lookups fail with 500 first;
	// roles overrides the "write" every user has.
	permFailures int
	roles        map[string]string
}

func (g *e2eGitHub) handler(t *testing.T) http.Handler {
	mux := http.NewServeMux()
	js := func(w http.ResponseWriter, code int, v any) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(code)
		json.NewEncoder(w).Encode(v)
	}
	comment := func(id int64, body string) map[string]any {
		user := map[string]any{"login": "perfbot[bot]", "type": "Bot"}
		if a, ok := g.authors[id]; ok {
			user = map[string]any{"login": a, "type": "User"}
		}
		return map[string]any{"id": id, "body": body, "html_url": fmt.Sprintf("https://github.com/acme/store/pull/12#issuecomment-%d", id),
			"user": user}
	}
	guard := func(h http.HandlerFunc) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if !strings.HasSuffix(r.Header.Get("Authorization"), " e2e-token") {
				js(w, http.StatusUnauthorized, map[string]string{"message": "Bad credentials"})
				return
			}
			g.mu.Lock()
			defer g.mu.Unlock()
			h(w, r)
		}
	}
	mux.HandleFunc("GET /repos/acme/store/collaborators/{user}/permission", guard(func(w http.ResponseWriter, r *http.Request) {
		if g.permFailures > 0 {
			g.permFailures--
			js(w, http.StatusInternalServerError, map[string]string{"message": "Server Error"})
			return
		}
		role := "write"
		if r, ok := g.roles[r.PathValue("user")]; ok {
			role = r
		}
		js(w, http.StatusOK, map[string]any{"permission": role, "role_name": role, "user": map[string]any{"login": r.PathValue("user")}})
		if f := g.afterApproval; f != nil && role != "read" && role != "none" {
			g.afterApproval = nil
			f()
		}
	}))
	mux.HandleFunc("POST /repos/acme/store/issues/comments/{id}/reactions", guard(func(w http.ResponseWriter, r *http.Request) {
		var body struct{ Content string }
		json.NewDecoder(r.Body).Decode(&body)
		g.reacted = append(g.reacted, body.Content)
		js(w, http.StatusCreated, map[string]any{"id": 1, "content": body.Content})
	}))
	mux.HandleFunc("GET /repos/acme/store/issues/12/comments", guard(func(w http.ResponseWriter, r *http.Request) {
		out := []map[string]any{}
		for _, id := range g.order {
			out = append(out, comment(id, g.comments[id]))
		}
		js(w, http.StatusOK, out)
	}))
	mux.HandleFunc("GET /repos/acme/store/issues/comments", guard(func(w http.ResponseWriter, r *http.Request) {
		g.listComments(w, r, js)
	}))
	mux.HandleFunc("GET /repos/acme/store/issues/12", guard(func(w http.ResponseWriter, r *http.Request) {
		js(w, http.StatusOK, map[string]any{"number": 12, "title": "Halve the cost", "state": "open",
			"html_url":     "https://github.com/acme/store/pull/12",
			"pull_request": map[string]any{"url": "https://api.github.com/repos/acme/store/pulls/12"}})
	}))
	mux.HandleFunc("POST /repos/acme/store/issues/12/comments", guard(func(w http.ResponseWriter, r *http.Request) {
		var body struct{ Body string }
		json.NewDecoder(r.Body).Decode(&body)
		id := int64(7000 + len(g.order))
		g.comments[id] = body.Body
		g.order = append(g.order, id)
		g.first = append(g.first, body.Body)
		g.created++
		js(w, http.StatusCreated, comment(id, body.Body))
	}))
	mux.HandleFunc("PATCH /repos/acme/store/issues/comments/{id}", guard(func(w http.ResponseWriter, r *http.Request) {
		id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
		if _, ok := g.comments[id]; !ok {
			js(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
			return
		}
		var body struct{ Body string }
		json.NewDecoder(r.Body).Decode(&body)
		g.comments[id] = body.Body
		g.edits++
		js(w, http.StatusOK, comment(id, body.Body))
	}))
	mux.HandleFunc("GET /repos/acme/store/pulls/12", guard(func(w http.ResponseWriter, r *http.Request) {
		js(w, http.StatusOK, map[string]any{"number": 12, "state": "open",
			"head": map[string]any{"sha": g.headSHA, "ref": "feature"}, "base": map[string]any{"ref": "main"}})
	}))
	mux.HandleFunc("POST /repos/acme/store/statuses/{sha}", guard(func(w http.ResponseWriter, r *http.Request) {
		var body struct{ State string }
		json.NewDecoder(r.Body).Decode(&body)
		g.statuses = append(g.statuses, r.PathValue("sha")+":"+body.State)
		js(w, http.StatusCreated, map[string]any{"id": 1, "state": body.State})
	}))
	// serve's credential check at start: who the token is, and the
	// repository.
	mux.HandleFunc("GET /user", guard(func(w http.ResponseWriter, r *http.Request) {
		js(w, http.StatusOK, map[string]any{"login": "perfbot[bot]", "id": 1, "type": "Bot"})
	}))
	mux.HandleFunc("GET /repos/acme/store", guard(func(w http.ResponseWriter, r *http.Request) {
		js(w, http.StatusOK, map[string]any{"id": 2, "name": "store", "full_name": "acme/store", "private": false})
	}))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("fake GitHub: unexpected %s %s", r.Method, r.URL)
		js(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
	})
	return mux
}

// e2eComment is an issue comment a poll lists.
type e2eComment struct {
	ID               int64
	Login, Body      string
	Created, Updated time.Time
}

// listComments answers GET /repos/{owner}/{repo}/issues/comments as GitHub
// documents it: the comments updated at or after since, sorted by sort
// (created, the default, or updated) in direction (asc unless desc),
// per_page at a time (default 30, at most 100) from page, with a Link
// header naming the next page when there is one.
func (g *e2eGitHub) listComments(w http.ResponseWriter, r *http.Request, js func(http.ResponseWriter, int, any)) {
	g.lists++
	q := r.URL.Query()
	since, _ := time.Parse(time.RFC3339, q.Get("since"))
	var list []e2eComment
	for _, c := range g.polled {
		if !c.Updated.Before(since) {
			list = append(list, c)
		}
	}
	key := func(c e2eComment) time.Time { return c.Created }
	if q.Get("sort") == "updated" {
		key = func(c e2eComment) time.Time { return c.Updated }
	}
	sort.SliceStable(list, func(i, j int) bool {
		if q.Get("direction") == "desc" {
			return key(list[i]).After(key(list[j]))
		}
		return key(list[i]).Before(key(list[j]))
	})
	perPage, _ := strconv.Atoi(q.Get("per_page"))
	if perPage <= 0 {
		perPage = 30
	}
	perPage = min(perPage, 100)
	page, _ := strconv.Atoi(q.Get("page"))
	page = max(page, 1)
	from := min((page-1)*perPage, len(list))
	to := min(from+perPage, len(list))
	if to < len(list) {
		next := *r.URL
		nq := next.Query()
		nq.Set("page", strconv.Itoa(page+1))
		next.RawQuery = nq.Encode()
		w.Header().Set("Link", fmt.Sprintf(`<http://%s/api/v3%s>; rel="next"`, r.Host, next.RequestURI()))
	}
	out := []map[string]any{}
	for _, c := range list[from:to] {
		out = append(out, map[string]any{"id": c.ID, "body": c.Body, "created_at": c.Created, "updated_at": c.Updated,
			"html_url":  fmt.Sprintf("https://github.com/acme/store/pull/12#issuecomment-%d", c.ID),
			"issue_url": "https://api.github.com/repos/acme/store/issues/12", "author_association": "MEMBER",
			"user": map[string]any{"login": c.Login, "type": "User"}})
	}
	js(w, http.StatusOK, out)
}

func freeAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// TestServeEndToEnd: a pull request comment reaches the webhook, a real git
// repository is benchmarked by "perfbot compare" in a child process, and
// the fake GitHub receives one comment with the table; a replayed delivery
// changes nothing. A patch mailed into the maildir is benchmarked too and
// answered in its thread through a real SMTP server.
func TestServeEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end benchmark run")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH")
	}
	r := gitrepo.New(t)
	r.Commit("work", map[string]string{
		"go.mod":            "module example.org/work\n\ngo 1.22\n",
		"work/work.go":      gitrepo.WorkSource(200000),
		"work/work_test.go": gitrepo.WorkBench,
	})
	r.Git("checkout", "-q", "-b", "pull/12/head")
	head := r.Commit("work: halve the loop", map[string]string{"work/work.go": gitrepo.WorkSource(100000)})
	r.Git("checkout", "-q", "main")

	gh := &e2eGitHub{comments: map[int64]string{}, headSHA: head}
	// A GitHub Enterprise address: the API lives under /api/v3/.
	fake := httptest.NewServer(http.StripPrefix("/api/v3", gh.handler(t)))
	defer fake.Close()

	dir := t.TempDir()
	addr := freeAddr(t)
	smtpSrv := startSMTP(t)
	maildir := filepath.Join(dir, "Maildir")
	for _, sub := range []string{"new", "cur", "tmp"} {
		os.MkdirAll(filepath.Join(maildir, sub), 0o755)
	}
	// A patch mailed to the list, as git send-email sends it.
	patch := r.Patch("work: halve the loop", map[string]string{"work/work.go": gitrepo.WorkSource(100000)}, true)
	patchData, err := os.ReadFile(patch)
	if err != nil {
		t.Fatal(err)
	}
	_, patchBody, _ := strings.Cut(string(patchData), "\n\n")
	mailText := "From: Dev Eloper <dev@example.org>\nTo: dev@lists.example.org\nSubject: [PATCH] work: halve the loop\n" +
		"Date: " + time.Now().Format(time.RFC1123Z) + "\nMessage-Id: <20261130.patch-1@example.org>\n" +
		"MIME-Version: 1.0\nContent-Type: text/plain; charset=UTF-8\n\n" + patchBody
	if err := os.WriteFile(filepath.Join(maildir, "new", "1.patch.host"), []byte(mailText), 0o644); err != nil {
		t.Fatal(err)
	}
	cfgFile := filepath.Join(dir, "config.yaml")
	cfg := fmt.Sprintf(`project: {repo: %q, branch: main}
suites:
  work: {preset: go, instrument: walltime, count: 10, go: {benchtime: 200x, bench: Work}}
sandbox: {mode: none}
service: {listen: %q, heartbeat: 1s, poll_interval: 1s, url: %q}
store: {driver: sqlite, path: %q}
triggers: {senders: [dev@example.org]}
venues:
  github: {repo: acme/store, url: %q, token_env: E2E_GH_TOKEN, webhook_secret_env: E2E_WEBHOOK_SECRET}
  mail: {smtp: %q, from: "perfbot <perfbot@example.org>", list: dev@lists.example.org, maildir: %q}
`, r.Dir, addr, "http://"+addr, filepath.Join(dir, "perfbot.db"), fake.URL+"/api/v3/", smtpSrv.addr, maildir)
	if err := os.WriteFile(cfgFile, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(mainEnv, "1")
	t.Setenv("E2E_GH_TOKEN", "e2e-token")
	t.Setenv("E2E_WEBHOOK_SECRET", "e2e-secret")
	t.Setenv("XDG_CACHE_HOME", sharedCacheHome(t))

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var serveErr bytes.Buffer
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("serve log:\n%s", serveErr.String())
		}
	})
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--config", cfgFile}, &bytes.Buffer{}, &syncWriter{w: &serveErr})
	}()
	waitHealthy(t, addr)

	body, err := os.ReadFile("../../intake/github/testdata/issue_comment.json")
	if err != nil {
		t.Fatal(err)
	}
	deliver := func(delivery string) int { return deliverComment(t, addr, body, delivery) }
	if code := deliver("e2e-1"); code != http.StatusOK {
		t.Fatalf("webhook: status %d\n%s", code, serveErr.String())
	}
	// The comment asks for suite "wal", which this project lacks; ask
	// again for the project's own suite in a new comment.
	body = bytes.Replace(body, []byte("/perfbot run wal base=main"), []byte("/perfbot run work base=main"), 1)
	body = bytes.Replace(body, []byte(`"id": 1987654321`), []byte(`"id": 1987654322`), 1)
	if code := deliver("e2e-2"); code != http.StatusOK {
		t.Fatalf("webhook: status %d", code)
	}
	deliver("e2e-2") // replayed

	var final string
	waitFor(t, 3*time.Minute, "the answer to the work run", func() bool {
		gh.mu.Lock()
		defer gh.mu.Unlock()
		for _, b := range gh.comments {
			if strings.Contains(b, "Work") && strings.Contains(b, "better") {
				final = b
				return true
			}
		}
		return false
	})
	// The mailed patch is answered in its thread, once.
	var reply string
	waitFor(t, 3*time.Minute, "the reply to the mailed patch", func() bool {
		msgs := smtpSrv.messages()
		if len(msgs) > 0 {
			reply = msgs[0]
		}
		return len(msgs) > 0
	})
	for _, want := range []string{"In-Reply-To: <20261130.patch-1@example.org>", "References: <20261130.patch-1@example.org>", "Work"} {
		if !strings.Contains(reply, want) {
			t.Errorf("reply lacks %q:\n%s", want, reply)
		}
	}
	time.Sleep(500 * time.Millisecond)
	if n := len(smtpSrv.messages()); n != 1 {
		t.Errorf("%d mails sent, want 1", n)
	}
	// The list delivers the answer back, and a reviewer replies to it
	// marking the verdict a false alarm (quoting the answer): one
	// acknowledgement in the thread, and perfbot's own answer is not read
	// as a command. On a loaded host the halved loop may have been called
	// noisy, which nothing can mark: then the answer says so.
	answerID := regexp.MustCompile(`(?i)\nMessage-Id: <([^>]+)>`).FindStringSubmatch(reply)
	if answerID == nil {
		t.Fatalf("answer has no Message-Id:\n%s", reply)
	}
	if err := os.WriteFile(filepath.Join(maildir, "new", "2.answer.host"), []byte(strings.ReplaceAll(reply, "\r\n", "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	markText := "From: Dev Eloper <dev@example.org>\nTo: dev@lists.example.org\nSubject: Re: [PATCH] work: halve the loop\n" +
		"Date: " + time.Now().Format(time.RFC1123Z) + "\nMessage-Id: <20261130.mark-1@example.org>\n" +
		"In-Reply-To: <" + answerID[1] + ">\nReferences: <20261130.patch-1@example.org> <" + answerID[1] + ">\n" +
		"MIME-Version: 1.0\nContent-Type: text/plain; charset=UTF-8\n\n> /perfbot false-alarm Nothing\n\n" +
		"/perfbot false-alarm Work -- the runner was idle\n"
	if err := os.WriteFile(filepath.Join(maildir, "new", "3.mark.host"), []byte(markText), 0o644); err != nil {
		t.Fatal(err)
	}
	var ack string
	waitFor(t, time.Minute, "the answer to the mark", func() bool {
		msgs := smtpSrv.messages()
		if len(msgs) > 1 {
			ack = msgs[1]
		}
		return len(msgs) > 1
	})
	time.Sleep(3 * time.Second) // three more polls
	if n := len(smtpSrv.messages()); n != 2 {
		t.Errorf("%d mails sent, want the answer and one acknowledgement", n)
	}
	ackText := strings.ReplaceAll(strings.ReplaceAll(ack, "=\r\n", ""), "\r\n", "\n")
	markedMail := strings.Contains(ackText, "marked 1 verdict of run") && strings.Contains(ackText, "Work")
	if !markedMail && !strings.Contains(ackText, `nothing marked: "Work" names no benchmark called better or worse`) {
		t.Errorf("answer to the mark:\n%s", ack)
	}
	t.Logf("the mark: recorded %v", markedMail)
	if !strings.Contains(ackText, "In-Reply-To: <20261130.mark-1@example.org>") {
		t.Errorf("answer to the mark is not in the thread:\n%s", ack)
	}
	gh.mu.Lock()
	created, comments := gh.created, len(gh.comments)
	reacted := len(gh.reacted)
	gh.mu.Unlock()
	// Two requests (wal, work), so two answers, each created once.
	if created != comments || comments > 2 || reacted != 2 {
		t.Errorf("comments created %d (now %d), reactions %d; want one comment per request and two reactions", created, comments, reacted)
	}
	if !strings.Contains(final, "|") {
		t.Errorf("answer has no table:\n%s", final)
	}
	// The answer links its run's page, which serve shows.
	if m := regexp.MustCompile(`\((http://[^)]+/runs/\d+)\)`).FindStringSubmatch(final); m == nil {
		t.Errorf("answer does not link its run page:\n%s", final)
	} else if resp, err := http.Get(m[1]); err != nil {
		t.Error(err)
	} else {
		page, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(page), "Work") || !strings.Contains(string(page), `id="table-0"`) {
			t.Errorf("GET %s: %s\n%s", m[1], resp.Status, page)
		}
	}
	// Each answer existed before its result: created as queued (or running,
	// when a worker took the job first), then edited in place.
	gh.mu.Lock()
	for _, b := range gh.first {
		if !strings.Contains(b, "**perfbot: queued**") && !strings.Contains(b, "**perfbot: running**") {
			t.Errorf("answer created with its result, not live:\n%s", b)
		}
	}
	gh.mu.Unlock()
	cancel()
	if err := <-done; err != nil {
		t.Errorf("serve: %v", err)
	}
	st, err := store.Open(context.Background(), store.SQLite, filepath.Join(dir, "perfbot.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	marks, err := st.FalseAlarms(context.Background(), 10)
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case !markedMail && len(marks) != 0:
		t.Errorf("nothing was marked, but the store has %+v", marks)
	case markedMail && (len(marks) != 1 || marks[0].By != "dev@example.org" || marks[0].Venue != "mail" || marks[0].Reason != "the runner was idle"):
		t.Errorf("marks in the store: %+v", marks)
	}
}

// testSMTP is a real SMTP server (go-smtp) on loopback that keeps what it
// receives.
type testSMTP struct {
	addr string
	mu   sync.Mutex
	msgs []string
}

func (s *testSMTP) messages() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.msgs...)
}

func startSMTP(t *testing.T) *testSMTP {
	ts := &testSMTP{}
	srv := smtp.NewServer(smtp.BackendFunc(func(c *smtp.Conn) (smtp.Session, error) { return &smtpSession{ts: ts}, nil }))
	srv.Domain = "mx.test"
	srv.AllowInsecureAuth = true
	srv.ErrorLog = log.New(io.Discard, "", 0)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ts.addr = l.Addr().String()
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return ts
}

type smtpSession struct{ ts *testSMTP }

func (s *smtpSession) Mail(string, *smtp.MailOptions) error { return nil }
func (s *smtpSession) Rcpt(string, *smtp.RcptOptions) error { return nil }
func (s *smtpSession) Reset()                               {}
func (s *smtpSession) Logout() error                        { return nil }
func (s *smtpSession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.ts.mu.Lock()
	s.ts.msgs = append(s.ts.msgs, string(b))
	s.ts.mu.Unlock()
	return nil
}

type syncWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// waitHealthy waits for perfbot serve at addr to answer /healthz.
func waitHealthy(t *testing.T, addr string) {
	t.Helper()
	waitFor(t, 20*time.Second, "serve to answer /healthz", func() bool {
		resp, err := http.Get("http://" + addr + "/healthz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
}

// deliverComment posts body to serve's GitHub webhook as an issue_comment
// event signed with the e2e secret, and returns the status code.
func deliverComment(t *testing.T, addr string, body []byte, delivery string) int {
	t.Helper()
	mac := hmac.New(sha256.New, []byte("e2e-secret"))
	mac.Write(body)
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/webhook/github", bytes.NewReader(body))
	req.Header.Set("X-GitHub-Event", "issue_comment")
	req.Header.Set("X-GitHub-Delivery", delivery)
	req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// workComment is the recorded issue_comment webhook asking for the
// "work" suite that costService's project has.
func workComment(t *testing.T) []byte {
	t.Helper()
	body, err := os.ReadFile("../../intake/github/testdata/issue_comment.json")
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Replace(body, []byte("/perfbot run wal base=main"), []byte("/perfbot run work base=main"), 1)
}

// waitFor waits until ok holds, as long as the work behind it progresses:
// it fails after idle passes with no CPU spent by child processes (builds,
// benchmarks, git), or near the test's deadline; a loaded host that makes
// a cold build slow does not fail it, a hang does.
func waitFor(t *testing.T, idle time.Duration, what string, ok func() bool) {
	t.Helper()
	testwait.Until(t, idle, what, ok)
}
