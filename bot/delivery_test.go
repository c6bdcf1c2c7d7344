package bot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/internal/pgtest"
	"github.com/perfbot/perfbot/mail"
	"github.com/perfbot/perfbot/review"
	"github.com/perfbot/perfbot/review/github"
	"github.com/perfbot/perfbot/review/retry"
	"github.com/perfbot/perfbot/store"
)

// clock is a settable clock for Deps.Now.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// smtpSink is an SMTP server keeping the messages it receives; it can be
// stopped and started again on the same address.
type smtpSink struct {
	mu   sync.Mutex
	addr string
	srv  *smtp.Server
	ln   net.Listener
	msgs []string
}

func (s *smtpSink) NewSession(*smtp.Conn) (smtp.Session, error) { return &sinkSession{sink: s}, nil }

type sinkSession struct{ sink *smtpSink }

func (*sinkSession) Reset()                               {}
func (*sinkSession) Logout() error                        { return nil }
func (*sinkSession) Mail(string, *smtp.MailOptions) error { return nil }
func (*sinkSession) Rcpt(string, *smtp.RcptOptions) error { return nil }
func (ss *sinkSession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	ss.sink.mu.Lock()
	ss.sink.msgs = append(ss.sink.msgs, string(b))
	ss.sink.mu.Unlock()
	return nil
}

func (s *smtpSink) start(t *testing.T) {
	t.Helper()
	addr := s.addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	s.addr, s.ln = ln.Addr().String(), ln
	s.srv = smtp.NewServer(s)
	s.srv.Domain = "localhost"
	go s.srv.Serve(ln)
}

// stop closes the listener (Serve may not have taken it yet) and the
// server.
func (s *smtpSink) stop() {
	s.ln.Close()
	s.srv.Close()
}

func (s *smtpSink) received() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.msgs...)
}

// openDelivery opens a service on db whose answers go through poster,
// with its delivery clock at c. Its loops do not run: the tests call
// DeliverDue.
func openDelivery(t *testing.T, driver, dsn string, poster Poster, c *clock, retryFor time.Duration) *Service {
	t.Helper()
	cfg := testConfig("serve", driver, dsn, false)
	cfg.Service.DeliveryRetryFor = retryFor
	svc, err := Open(context.Background(), cfg, ModeServe, Deps{Poster: poster, Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	return svc
}

func finalAnswer(key, text string) answer.Answer {
	return answer.Answer{Key: key, Subject: "Re: [PATCH 0/2] scan faster", Summary: text, State: answer.StateSuccess, InReplyTo: "<cover@example.org>", Renderings: map[answer.Format]answer.Rendering{answer.MarkdownGFM: {Full: text}, answer.Text: {Full: text + "\n"}}}
}

// TestSMTPDownForMinutes: an answer to a mailing list whose SMTP server is
// down is retried with growing waits, on the delivery clock, and delivered
// once the server is back; nothing is lost and nothing sent twice.
func TestSMTPDownForMinutes(t *testing.T) {
	sink := &smtpSink{}
	sink.start(t)
	sink.stop() // down, with its address known
	sender, err := mail.NewSender(mail.SMTPConfig{Addr: sink.addr, From: "perfbot <perfbot@example.org>",
		StartTLS: mail.StartTLSOff, Timeout: 5 * time.Second, Retry: retry.Policy{Attempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	poster := PosterFunc(func(ctx context.Context, to review.Target, msg answer.Answer) (string, error) {
		return sender.Post(ctx, to.Where, msg)
	})
	c := &clock{t: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}
	svc := openDelivery(t, store.SQLite, filepath.Join(t.TempDir(), "perfbot.db"), poster, c, 12*time.Hour)
	ctx := context.Background()
	key := "mail:<cover@example.org>"
	if err := svc.putAnswer(ctx, []string{"mail:dev@lists.example.org"}, finalAnswer(key, "1 better, 0 worse"), true, time.Time{}); err != nil {
		t.Fatal(err)
	}
	// Down for ten minutes: a few tries, each after a longer wait.
	var waits []time.Duration
	last := c.Now()
	for range 40 {
		n, err := svc.DeliverDue(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			waits = append(waits, c.Now().Sub(last))
			last = c.Now()
		}
		c.Add(15 * time.Second)
	}
	a, err := svc.Store().GetAnswer(ctx, key, "mail:dev@lists.example.org")
	if err != nil {
		t.Fatal(err)
	}
	if a.Status != store.OutboxPending || a.Attempts != len(waits) || !strings.Contains(a.LastError, "connection refused") {
		t.Fatalf("after 10 minutes down: %+v", a)
	}
	if len(waits) < 3 || len(waits) > 6 || waits[len(waits)-1] <= waits[1] {
		t.Errorf("tries after waits %v: want a few, further and further apart", waits)
	}
	if got := svc.Metrics().Counter("perfbot_post_failures_total", "venue", "mail"); int(got) != len(waits) {
		t.Errorf("post failures metric = %v, want %d", got, len(waits))
	}
	sink.start(t)
	defer sink.stop()
	for range 200 {
		if ok, _ := svc.Store().Answered(ctx, key); ok {
			break
		}
		if _, err := svc.DeliverDue(ctx); err != nil {
			t.Fatal(err)
		}
		c.Add(time.Minute)
	}
	if ok, _ := svc.Store().Answered(ctx, key); !ok {
		t.Fatal("answer not delivered after the server came back")
	}
	for range 5 {
		c.Add(time.Hour)
		svc.DeliverDue(ctx)
	}
	got := sink.received()
	if len(got) != 1 || !strings.Contains(got[0], "1 better, 0 worse") || !strings.Contains(got[0], "In-Reply-To: <cover@example.org>") {
		t.Fatalf("received %d mails: %q", len(got), got)
	}
	p, err := svc.Store().GetPost(ctx, "mail", "dev@lists.example.org", key)
	if err != nil || p.Count != 1 || p.State != "success" {
		t.Errorf("post record = %+v, %v", p, err)
	}
}

// TestDeliveryGivesUp: a delivery still failing when the retry period ends
// is given up with its reason and counted; a refusal that will not pass
// is given up at once.
func TestDeliveryGivesUp(t *testing.T) {
	var calls int
	poster := PosterFunc(func(ctx context.Context, to review.Target, msg answer.Answer) (string, error) {
		calls++
		if to.Venue == "jira" {
			return "", errors.New("jira: comment on STORE-9: 404 Not Found: Issue does not exist")
		}
		return "", retry.Transient(errors.New("github: 502 Bad Gateway"))
	})
	c := &clock{t: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}
	svc := openDelivery(t, store.SQLite, filepath.Join(t.TempDir(), "perfbot.db"), poster, c, 2*time.Hour)
	ctx := context.Background()
	if err := svc.putAnswer(ctx, []string{"github:acme/store#3", "jira:STORE-9"}, finalAnswer("k", "done"), true, time.Time{}); err != nil {
		t.Fatal(err)
	}
	for range 60 {
		svc.DeliverDue(ctx)
		c.Add(5 * time.Minute)
	}
	failed, err := svc.Store().Answers(ctx, store.OutboxFailed)
	if err != nil || len(failed) != 2 {
		t.Fatalf("failed answers = %+v, %v", failed, err)
	}
	for _, a := range failed {
		switch a.Target {
		case "jira:STORE-9":
			if a.Attempts != 1 || !strings.Contains(a.LastError, "404 Not Found") {
				t.Errorf("refused answer: %+v", a)
			}
		case "github:acme/store#3":
			if a.Attempts < 5 || !strings.Contains(a.LastError, "not delivered after 2h0m0s of retries") || !strings.Contains(a.LastError, "502") {
				t.Errorf("expired answer: %+v", a)
			}
		}
	}
	if svc.Metrics().Counter("perfbot_answers_failed_total", "venue", "jira", "reason", "refused") != 1 ||
		svc.Metrics().Counter("perfbot_answers_failed_total", "venue", "github", "reason", "expired") != 1 {
		t.Error("given-up answers not counted")
	}
	before := calls
	for range 10 {
		svc.DeliverDue(ctx)
		c.Add(time.Hour)
	}
	if calls != before {
		t.Errorf("%d more tries of given-up answers", calls-before)
	}
}

// fakeGitHubComments is a GitHub REST fake holding one pull request's
// comments; its first failures answers are 502.
type fakeGitHubComments struct {
	mu       sync.Mutex
	failures int
	comments map[int64]string
	nextID   int64
	edits    int
	// authors holds the login of comments not perfbot's; head is the
	// pull request's head (default c...c); statuses are "SHA:STATE".
	authors  map[int64]string
	head     string
	statuses []string
}

func (f *fakeGitHubComments) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failures > 0 {
		f.failures--
		http.Error(w, `{"message":"Server Error"}`, http.StatusBadGateway)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	var in struct {
		Body string `json:"body"`
	}
	comment := func(id int64) map[string]any {
		login := "perfbot[bot]"
		if a, ok := f.authors[id]; ok {
			login = a
		}
		return map[string]any{"id": id, "body": f.comments[id], "user": map[string]any{"login": login},
			"html_url": fmt.Sprintf("https://github.example/acme/store/pull/3#issuecomment-%d", id)}
	}
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/api/v3/user":
		json.NewEncoder(w).Encode(map[string]any{"login": "perfbot[bot]", "id": 1, "type": "Bot"})
	case r.Method == http.MethodGet && r.URL.Path == "/api/v3/repos/acme/store/issues/3/comments":
		list := []map[string]any{}
		for id := int64(1); id <= f.nextID; id++ {
			if _, ok := f.comments[id]; ok {
				list = append(list, comment(id))
			}
		}
		json.NewEncoder(w).Encode(list)
	case r.Method == http.MethodPost && r.URL.Path == "/api/v3/repos/acme/store/issues/3/comments":
		json.NewDecoder(r.Body).Decode(&in)
		f.nextID++
		f.comments[f.nextID] = in.Body
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(comment(f.nextID))
	case r.Method == http.MethodPatch && strings.HasPrefix(r.URL.Path, "/api/v3/repos/acme/store/issues/comments/"):
		var id int64
		fmt.Sscan(strings.TrimPrefix(r.URL.Path, "/api/v3/repos/acme/store/issues/comments/"), &id)
		if _, ok := f.comments[id]; !ok {
			http.Error(w, `{"message":"Not Found"}`, http.StatusNotFound)
			return
		}
		json.NewDecoder(r.Body).Decode(&in)
		f.comments[id] = in.Body
		f.edits++
		json.NewEncoder(w).Encode(comment(id))
	case r.Method == http.MethodGet && r.URL.Path == "/api/v3/repos/acme/store/pulls/3":
		head := f.head
		if head == "" {
			head = strings.Repeat("c", 40)
		}
		json.NewEncoder(w).Encode(map[string]any{"number": 3, "head": map[string]any{"sha": head}})
	case r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, "/api/v3/repos/acme/store/statuses/"):
		var st struct{ State string }
		json.NewDecoder(r.Body).Decode(&st)
		f.statuses = append(f.statuses, strings.TrimPrefix(r.URL.Path, "/api/v3/repos/acme/store/statuses/")+":"+st.State)
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{"id":1}`)
	default:
		http.Error(w, `{"message":"Not Found"}`, http.StatusNotFound)
	}
}

func (f *fakeGitHubComments) snapshot() (bodies []string, edits int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for id := int64(1); id <= f.nextID; id++ {
		if b, ok := f.comments[id]; ok {
			bodies = append(bodies, b)
		}
	}
	return bodies, f.edits
}

// TestDeliveryAcrossRestart: a serve stopped while GitHub answers 502
// leaves the answer pending in the store; the next serve delivers it
// (after five more 502s), as one comment, edited from queued to the
// result.
func TestDeliveryAcrossRestart(t *testing.T) {
	for _, driver := range []string{store.SQLite, store.Postgres} {
		t.Run(driver, func(t *testing.T) {
			dsn := filepath.Join(t.TempDir(), "perfbot.db")
			if driver == store.Postgres {
				dsn = pgDSN(t)
			}
			f := &fakeGitHubComments{comments: map[int64]string{}}
			srv := httptest.NewServer(f)
			defer srv.Close()
			gp, err := github.New(github.Config{BaseURL: srv.URL + "/api/v3/", Token: "t0ken",
				Retry: retry.Policy{Attempts: 1}})
			if err != nil {
				t.Fatal(err)
			}
			poster := PosterFunc(func(ctx context.Context, to review.Target, msg answer.Answer) (string, error) {
				return gp.Post(ctx, to.Where, msg)
			})
			ctx := context.Background()
			c := &clock{t: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}
			first := openDelivery(t, driver, dsn, poster, c, 12*time.Hour)
			spec := JobSpec{Key: "github:acme/store#3/comment/77", Targets: []string{"github:acme/store#3"}, Title: "scan faster"}
			if err := first.putAnswer(ctx, spec.Targets, liveMessage(spec, answer.StateQueued, "position 1 in the queue"), false, c.Now()); err != nil {
				t.Fatal(err)
			}
			if _, err := first.DeliverDue(ctx); err != nil {
				t.Fatal(err)
			}
			if bodies, _ := f.snapshot(); len(bodies) != 1 || !strings.Contains(bodies[0], "perfbot: queued") {
				t.Fatalf("queued answer: comments %q", bodies)
			}
			f.mu.Lock()
			f.failures = 8
			f.mu.Unlock()
			if err := first.putAnswer(ctx, spec.Targets, finalAnswer(spec.Key, "1 better, 0 worse"), true, time.Time{}); err != nil {
				t.Fatal(err)
			}
			for range 3 {
				first.DeliverDue(ctx)
				c.Add(10 * time.Minute)
			}
			first.Close()

			second := openDelivery(t, driver, dsn, poster, c, 12*time.Hour)
			for range 30 {
				if ok, _ := second.Store().Answered(ctx, spec.Key); ok {
					break
				}
				second.DeliverDue(ctx)
				c.Add(10 * time.Minute)
			}
			if ok, _ := second.Store().Answered(ctx, spec.Key); !ok {
				as, _ := second.Store().Answers(ctx)
				t.Fatalf("not delivered after the restart: %+v", as)
			}
			bodies, edits := f.snapshot()
			if len(bodies) != 1 || !strings.Contains(bodies[0], "1 better, 0 worse") || edits != 1 {
				t.Errorf("comments %q after %d edits; want one comment, edited once to the result", bodies, edits)
			}
		})
	}
}

func pgDSN(t *testing.T) string {
	t.Helper()
	return pgtest.Start(t).NewDB(t)
}

// TestLiveEditsSpaced: the edits of a live answer come at most once per
// service.answer_edit_interval, newest state first; the result is not held
// back.
func TestLiveEditsSpaced(t *testing.T) {
	f := &fakeGitHubComments{comments: map[int64]string{}}
	srv := httptest.NewServer(f)
	defer srv.Close()
	gp, err := github.New(github.Config{BaseURL: srv.URL + "/api/v3/", Token: "t0ken", Retry: retry.Policy{Attempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	c := &clock{t: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}
	svc := openDelivery(t, store.SQLite, filepath.Join(t.TempDir(), "perfbot.db"),
		PosterFunc(func(ctx context.Context, to review.Target, msg answer.Answer) (string, error) {
			return gp.Post(ctx, to.Where, msg)
		}),
		c, time.Hour)
	ctx := context.Background()
	spec := JobSpec{Key: "github:acme/store#3/comment/8", Targets: []string{"github:acme/store#3"}}
	put := func(state answer.State, status string) {
		t.Helper()
		if err := svc.putAnswer(ctx, spec.Targets, liveMessage(spec, state, status), false, time.Time{}); err != nil {
			t.Fatal(err)
		}
	}
	put(answer.StateQueued, "position 1 in the queue")
	svc.DeliverDue(ctx)
	for i := 1; i <= 5; i++ {
		c.Add(5 * time.Second)
		put(answer.StatePending, fmt.Sprintf("suite wal, round %d of 5", i))
		svc.DeliverDue(ctx)
	}
	bodies, edits := f.snapshot()
	if len(bodies) != 1 || edits != 0 || !strings.Contains(bodies[0], "queued") {
		t.Fatalf("within the edit interval: comments %q, %d edits; want the queued answer alone", bodies, edits)
	}
	c.Add(5 * time.Second) // 30s after the first post
	svc.DeliverDue(ctx)
	bodies, edits = f.snapshot()
	if edits != 1 || !strings.Contains(bodies[0], "round 5 of 5") {
		t.Fatalf("after the interval: %q, %d edits; want one edit to the newest progress", bodies, edits)
	}
	c.Add(time.Second)
	if err := svc.putAnswer(ctx, spec.Targets, finalAnswer(spec.Key, "2 better, 0 worse"), true, time.Time{}); err != nil {
		t.Fatal(err)
	}
	svc.DeliverDue(ctx)
	if bodies, edits = f.snapshot(); edits != 2 || len(bodies) != 1 || !strings.Contains(bodies[0], "2 better, 0 worse") {
		t.Errorf("result: %q after %d edits; want it at once, in the same comment", bodies, edits)
	}
}

// relay forwards connections from a loopback port to addr while it runs;
// stopped, its port refuses connections, as a mail server that is down.
type relay struct {
	addr string
	ln   net.Listener
}

func (r *relay) start(t *testing.T, to string) {
	t.Helper()
	listen := r.addr
	if listen == "" {
		listen = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		t.Fatal(err)
	}
	r.addr, r.ln = ln.Addr().String(), ln
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				d, err := net.Dial("tcp", to)
				if err != nil {
					return
				}
				defer d.Close()
				go io.Copy(d, c)
				io.Copy(c, d)
			}()
		}
	}()
}

// TestPostfixDownThenBack: the real postfix on 127.0.0.1:25, unreachable
// while the answer is first tried (its port closed), gets the answer once
// it is reachable again, into the local mailbox, once.
func TestPostfixDownThenBack(t *testing.T) {
	if os.Getenv("PERFBOT_TEST_POSTFIX") != "1" {
		t.Skip("PERFBOT_TEST_POSTFIX is not 1: not delivering through a local postfix")
	}
	maildir := "/home/perfbot-test/Maildir/new"
	r := &relay{}
	r.start(t, "127.0.0.1:25")
	r.ln.Close() // down
	sender, err := mail.NewSender(mail.SMTPConfig{Addr: r.addr, From: "perfbot <perfbot@localhost>",
		StartTLS: mail.StartTLSOff, Timeout: 10 * time.Second, Retry: retry.Policy{Attempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	c := &clock{t: time.Now()}
	svc := openDelivery(t, store.SQLite, filepath.Join(t.TempDir(), "perfbot.db"),
		PosterFunc(func(ctx context.Context, to review.Target, msg answer.Answer) (string, error) {
			return sender.Post(ctx, to.Where, msg)
		}), c, 12*time.Hour)
	ctx := context.Background()
	key := "postfix-outbox-" + time.Now().Format("20060102T150405.000000000")
	target := "mail:perfbot-test@localhost"
	if err := svc.putAnswer(ctx, []string{target}, finalAnswer(key, "3 better, 0 worse"), true, time.Time{}); err != nil {
		t.Fatal(err)
	}
	for range 20 { // five minutes down
		svc.DeliverDue(ctx)
		c.Add(15 * time.Second)
	}
	a, err := svc.Store().GetAnswer(ctx, key, target)
	if err != nil || a.Status != store.OutboxPending || a.Attempts < 2 {
		t.Fatalf("while postfix is unreachable: %+v, %v", a, err)
	}
	r.start(t, "127.0.0.1:25")
	defer r.ln.Close()
	for range 100 {
		if ok, _ := svc.Store().Answered(ctx, key); ok {
			break
		}
		svc.DeliverDue(ctx)
		c.Add(time.Minute)
	}
	a, err = svc.Store().GetAnswer(ctx, key, target)
	if err != nil || a.Status != store.OutboxDelivered {
		t.Fatalf("after postfix is back: %+v, %v", a, err)
	}
	id := strings.Trim(a.Link, "<>")
	found := 0
	for deadline := time.Now().Add(30 * time.Second); found == 0 && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		ents, _ := os.ReadDir(maildir)
		for _, e := range ents {
			if data, err := os.ReadFile(filepath.Join(maildir, e.Name())); err == nil && strings.Contains(string(data), id) {
				found++
			}
		}
	}
	if found != 1 {
		t.Errorf("message %s found %d times in %s, want once", id, found, maildir)
	}
}
