package outbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/internal/fake/githubfake"
	"github.com/perfbot/perfbot/internal/fake/smtpfake"
	"github.com/perfbot/perfbot/internal/pgtest"
	"github.com/perfbot/perfbot/store"
	"github.com/perfbot/perfbot/target"
	"github.com/perfbot/perfbot/venue/github"
	"github.com/perfbot/perfbot/venue/mail"
	"github.com/perfbot/perfbot/venue/retry"
)

// clock is a settable clock for Options.Now.
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

// testOutbox is an outbox, its store and its counters.
type testOutbox struct {
	*Outbox
	st      *store.Store
	metrics *counters
}

// Store is the store the outbox keeps its rows in.
func (o *testOutbox) Store() *store.Store { return o.st }

// Metrics are the counters it raised.
func (o *testOutbox) Metrics() *counters { return o.metrics }

// Close closes the store.
func (o *testOutbox) Close() error { return o.st.Close() }

// counters counts Inc calls by name and labels.
type counters struct {
	mu sync.Mutex
	n  map[string]float64
}

func (c *counters) Inc(name string, labels ...string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n[name+"{"+strings.Join(labels, ",")+"}"]++
}

// Counter is the count of name with labels.
func (c *counters) Counter(name string, labels ...string) float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[name+"{"+strings.Join(labels, ",")+"}"]
}

// posterFunc adapts a function to Poster.
type posterFunc func(ctx context.Context, to target.Target, msg answer.Answer) (string, error)

func (f posterFunc) Post(ctx context.Context, to target.Target, msg answer.Answer) (string, error) {
	return f(ctx, to, msg)
}

// openDelivery opens the outbox of the store at dsn, whose answers go
// through poster, with its delivery clock at c. Its loop does not run: the
// tests call DeliverDue.
func openDelivery(t *testing.T, driver, dsn string, poster Poster, c *clock, retryFor time.Duration) *testOutbox {
	t.Helper()
	st, err := store.Open(context.Background(), driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	m := &counters{n: map[string]float64{}}
	return &testOutbox{Outbox: New(st, poster, m, Options{Owner: fmt.Sprintf("test-%d", time.Now().UnixNano()),
		RetryFor: retryFor, EditInterval: 30 * time.Second, Now: c.Now}), st: st, metrics: m}
}

// liveAnswer is a non-final answer saying how a request stands.
func liveAnswer(key string, state answer.State, status string) answer.Answer {
	text := "perfbot: " + string(state) + " (" + status + ")"
	return answer.Answer{Key: key, Summary: text, State: state,
		Renderings: map[answer.Format]answer.Rendering{answer.MarkdownGFM: {Full: text}, answer.Text: {Full: text + "\n"}}}
}

func finalAnswer(key, text string) answer.Answer {
	return answer.Answer{Key: key, Subject: "Re: [PATCH 0/2] scan faster", Summary: text, State: answer.StateSuccess, InReplyTo: "<cover@example.org>", Renderings: map[answer.Format]answer.Rendering{answer.MarkdownGFM: {Full: text}, answer.Text: {Full: text + "\n"}}}
}

// TestSMTPDownForMinutes: an answer to a mailing list whose SMTP server is
// down is retried with growing waits, on the delivery clock, and delivered
// once the server is back; nothing is lost and nothing sent twice.
func TestSMTPDownForMinutes(t *testing.T) {
	sink := &smtpfake.Sink{}
	sink.Start(t)
	sink.Stop() // down, with its address known
	sender, err := mail.NewSender(mail.SMTPConfig{Addr: sink.Addr, From: "perfbot <perfbot@example.org>",
		StartTLS: mail.StartTLSOff, Timeout: 5 * time.Second, Retry: retry.Policy{Attempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	poster := posterFunc(func(ctx context.Context, to target.Target, msg answer.Answer) (string, error) {
		return sender.Post(ctx, to, msg)
	})
	c := &clock{t: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}
	svc := openDelivery(t, store.SQLite, filepath.Join(t.TempDir(), "perfbot.db"), poster, c, 12*time.Hour)
	ctx := context.Background()
	key := "mail:<cover@example.org>"
	if err := svc.Put(ctx, []target.Target{target.MustParse("mail:dev@lists.example.org")}, finalAnswer(key, "1 better, 0 worse"), true, time.Time{}); err != nil {
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
	sink.Start(t)
	defer sink.Stop()
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
	got := sink.Received()
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
	poster := posterFunc(func(ctx context.Context, to target.Target, msg answer.Answer) (string, error) {
		calls++
		if to.Venue == "jira" {
			return "", errors.New("jira: comment on STORE-9: 404 Not Found: Issue does not exist")
		}
		return "", retry.Transient(errors.New("github: 502 Bad Gateway"))
	})
	c := &clock{t: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}
	svc := openDelivery(t, store.SQLite, filepath.Join(t.TempDir(), "perfbot.db"), poster, c, 2*time.Hour)
	ctx := context.Background()
	if err := svc.Put(ctx, []target.Target{target.MustParse("github:acme/store#3"), target.MustParse("jira:STORE-9")}, finalAnswer("k", "done"), true, time.Time{}); err != nil {
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

// TestDeliveryAcrossRestart: a serve stopped while GitHub answers 502
// leaves the answer pending in the store; the next serve delivers it
// (after five more 502s), as one comment, edited from queued to the
// result.
func TestDeliveryAcrossRestart(t *testing.T) {
	for _, driver := range []string{store.SQLite, store.Postgres} {
		t.Run(driver, func(t *testing.T) {
			dsn := filepath.Join(t.TempDir(), "perfbot.db")
			if driver == store.Postgres {
				dsn = pgtest.Start(t).NewDB(t)
			}
			f := &githubfake.Comments{Comments: map[int64]string{}}
			srv := httptest.NewServer(f)
			defer srv.Close()
			gp, err := github.New(github.Config{BaseURL: srv.URL + "/api/v3/", Token: "t0ken",
				Retry: retry.Policy{Attempts: 1}})
			if err != nil {
				t.Fatal(err)
			}
			poster := posterFunc(func(ctx context.Context, to target.Target, msg answer.Answer) (string, error) {
				return gp.Post(ctx, to, msg)
			})
			ctx := context.Background()
			c := &clock{t: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}
			first := openDelivery(t, driver, dsn, poster, c, 12*time.Hour)
			spec := struct {
				Key     string
				Targets []target.Target
			}{Key: "github:acme/store#3/comment/77", Targets: []target.Target{target.MustParse("github:acme/store#3")}}
			if err := first.Put(ctx, spec.Targets, liveAnswer(spec.Key, answer.StateQueued, "position 1 in the queue"), false, c.Now()); err != nil {
				t.Fatal(err)
			}
			if _, err := first.DeliverDue(ctx); err != nil {
				t.Fatal(err)
			}
			if bodies, _ := f.Snapshot(); len(bodies) != 1 || !strings.Contains(bodies[0], "perfbot: queued") {
				t.Fatalf("queued answer: comments %q", bodies)
			}
			f.Lock()
			f.Failures = 8
			f.Unlock()
			if err := first.Put(ctx, spec.Targets, finalAnswer(spec.Key, "1 better, 0 worse"), true, time.Time{}); err != nil {
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
			bodies, edits := f.Snapshot()
			if len(bodies) != 1 || !strings.Contains(bodies[0], "1 better, 0 worse") || edits != 1 {
				t.Errorf("comments %q after %d edits; want one comment, edited once to the result", bodies, edits)
			}
		})
	}
}

// TestLiveEditsSpaced: the edits of a live answer come at most once per
// service.answer_edit_interval, newest state first; the result is not held
// back.
func TestLiveEditsSpaced(t *testing.T) {
	f := &githubfake.Comments{Comments: map[int64]string{}}
	srv := httptest.NewServer(f)
	defer srv.Close()
	gp, err := github.New(github.Config{BaseURL: srv.URL + "/api/v3/", Token: "t0ken", Retry: retry.Policy{Attempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	c := &clock{t: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}
	svc := openDelivery(t, store.SQLite, filepath.Join(t.TempDir(), "perfbot.db"),
		posterFunc(func(ctx context.Context, to target.Target, msg answer.Answer) (string, error) {
			return gp.Post(ctx, to, msg)
		}),
		c, time.Hour)
	ctx := context.Background()
	spec := struct {
		Key     string
		Targets []target.Target
	}{Key: "github:acme/store#3/comment/8", Targets: []target.Target{target.MustParse("github:acme/store#3")}}
	put := func(state answer.State, status string) {
		t.Helper()
		if err := svc.Put(ctx, spec.Targets, liveAnswer(spec.Key, state, status), false, time.Time{}); err != nil {
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
	bodies, edits := f.Snapshot()
	if len(bodies) != 1 || edits != 0 || !strings.Contains(bodies[0], "queued") {
		t.Fatalf("within the edit interval: comments %q, %d edits; want the queued answer alone", bodies, edits)
	}
	c.Add(5 * time.Second) // 30s after the first post
	svc.DeliverDue(ctx)
	bodies, edits = f.Snapshot()
	if edits != 1 || !strings.Contains(bodies[0], "round 5 of 5") {
		t.Fatalf("after the interval: %q, %d edits; want one edit to the newest progress", bodies, edits)
	}
	c.Add(time.Second)
	if err := svc.Put(ctx, spec.Targets, finalAnswer(spec.Key, "2 better, 0 worse"), true, time.Time{}); err != nil {
		t.Fatal(err)
	}
	svc.DeliverDue(ctx)
	if bodies, edits = f.Snapshot(); edits != 2 || len(bodies) != 1 || !strings.Contains(bodies[0], "2 better, 0 worse") {
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
		posterFunc(func(ctx context.Context, to target.Target, msg answer.Answer) (string, error) {
			return sender.Post(ctx, to, msg)
		}), c, 12*time.Hour)
	ctx := context.Background()
	key := "postfix-outbox-" + time.Now().Format("20060102T150405.000000000")
	to := "mail:perfbot-test@localhost"
	if err := svc.Put(ctx, []target.Target{target.MustParse(to)}, finalAnswer(key, "3 better, 0 worse"), true, time.Time{}); err != nil {
		t.Fatal(err)
	}
	for range 20 { // five minutes down
		svc.DeliverDue(ctx)
		c.Add(15 * time.Second)
	}
	a, err := svc.Store().GetAnswer(ctx, key, to)
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
	a, err = svc.Store().GetAnswer(ctx, key, to)
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
