package mail

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	gomail "github.com/emersion/go-message/mail"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/internal/storetest"
	"github.com/perfbot/perfbot/target"
	"github.com/perfbot/perfbot/trigger"
	"github.com/perfbot/perfbot/venue/mail"
)

// fakePoster records the answers posted, failing while fail is set.
type fakePoster struct {
	mu    sync.Mutex
	fail  bool
	posts []post
}

type post struct {
	to  target.Target
	msg answer.Answer
}

func (f *fakePoster) Post(ctx context.Context, to target.Target, msg answer.Answer) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fail {
		return "", errors.New("smtp: 451 try again later")
	}
	f.posts = append(f.posts, post{to, msg})
	return "mid:" + msg.Key, nil
}

// TestPollSenderPolicy: a patch from an allowed sender is queued; a patch
// from anyone else, and a series with one part from anyone else, are
// never queued and get one polite reply in their thread, to the sender.
// Every decision is logged with its reason.
func TestPollSenderPolicy(t *testing.T) {
	dir := t.TempDir()
	st := storetest.SQLite(t)
	now := time.Now().Add(-time.Hour).Truncate(time.Second)
	sendEmailFrom(t, dir, "Dev Eloper <dev@example.org>", "ok@example.org", "", "[PATCH] wal: batch syncs", patchBody("wal/wal.go"), now)
	sendEmailFrom(t, dir, "Drive By <drive-by@elsewhere.test>", "stranger@elsewhere.test", "", "[PATCH] cache: bigger", patchBody("cache.go"), now.Add(time.Second))
	// A series whose second part was sent into the thread by someone else.
	sendEmailFrom(t, dir, "Dev Eloper <dev@example.org>", "s1@example.org", "", "[PATCH 1/2] a", patchBody("a.go"), now.Add(2*time.Second))
	sendEmailFrom(t, dir, "Mallory <mallory@evil.test>", "s2@evil.test", "s1@example.org", "[PATCH 2/2] b", patchBody("b.go"), now.Add(3*time.Second))

	var logs bytes.Buffer
	q, poster := &fakeQueue{}, &fakePoster{fail: true}
	p := &Poller{Source: MaildirSource(dir), Queue: q, Tested: st, List: "store-dev@lists.example.org",
		Policy: trigger.Policy{AllowSenders: []string{"@example.org"}}, Poster: poster,
		Log: slog.New(slog.NewTextHandler(&logs, nil))}
	ctx := context.Background()
	// The first answers fail: the refused series are not remembered, so
	// the next poll answers them.
	if n, err := p.Poll(ctx); n != 1 || err == nil || !strings.Contains(err.Error(), "451") {
		t.Fatalf("poll with a failing poster queued %d, %v; want 1 and the posting error", n, err)
	}
	poster.fail = false
	for i := range 2 {
		if n, err := p.Poll(ctx); n != 0 || err != nil {
			t.Fatalf("poll %d queued %d, %v; want 0", i, n, err)
		}
	}
	if len(q.jobs) != 1 || q.jobs[0].Key != "mail:ok@example.org/v1" {
		t.Fatalf("queued %+v, want only the allowed sender's patch", q.jobs)
	}
	if len(poster.posts) != 2 {
		t.Fatalf("posted %d answers, want one to each refused series: %+v", len(poster.posts), poster.posts)
	}
	want := map[string]struct{ to, subject string }{
		"stranger@elsewhere.test": {"drive-by@elsewhere.test", RefusalSubject},
		"s1@example.org":          {"mallory@evil.test", RefusalSubject},
	}
	for _, ps := range poster.posts {
		w, ok := want[ps.msg.InReplyTo]
		if !ok || ps.to.String() != "mail:"+w.to || ps.msg.Subject != w.subject ||
			!strings.HasPrefix(ps.msg.Full(answer.Text), "Thank you for the patch.") || ps.msg.Key != "mail:"+ps.msg.InReplyTo+"/v1/refused" ||
			ps.msg.References[len(ps.msg.References)-1] != ps.msg.InReplyTo {
			t.Errorf("answer to %s: %+v; want a reply in thread %q to %s", ps.to, ps.msg, ps.msg.InReplyTo, w.to)
		}
	}
	for _, line := range []string{
		`msg="trigger policy: allowed" key=mail:ok@example.org/v1 requester="Dev Eloper <dev@example.org>" reason="sender dev@example.org is in the allowed domain @example.org"`,
		`msg="trigger policy: refused" key=mail:stranger@elsewhere.test/v1 requester="Drive By <drive-by@elsewhere.test>" reason="sender drive-by@elsewhere.test is not in the sender allow list"`,
		`msg="trigger policy: refused" key=mail:s1@example.org/v1 requester="Dev Eloper <dev@example.org>" reason="sender mallory@evil.test is not in the sender allow list"`,
	} {
		if !strings.Contains(logs.String(), line) {
			t.Errorf("log lacks %s:\n%s", line, logs.String())
		}
	}

	// The answer is a mail in the thread, as the mail poster composes it.
	var buf bytes.Buffer
	msg := poster.posts[0].msg
	if _, err := mail.Compose(&buf, mail.Outgoing{From: &gomail.Address{Address: "perfbot@example.org"},
		To: []*gomail.Address{{Address: poster.posts[0].to.Where()}}, Msg: msg}); err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"In-Reply-To: <" + msg.InReplyTo + ">", "Subject: Re: " + msg.Subject, "Auto-Submitted: auto-generated"} {
		if !strings.Contains(buf.String(), h) {
			t.Errorf("composed answer lacks %q:\n%s", h, buf.String())
		}
	}
}

// TestPollDefaultPolicyRefusesAll: without senders, no mailed patch runs.
func TestPollDefaultPolicyRefusesAll(t *testing.T) {
	dir := t.TempDir()
	st := storetest.SQLite(t)
	sendEmail(t, dir, "lone@example.org", "", "[PATCH] docs: fix typo", patchBody("README"), time.Now().Add(-time.Minute))
	q, poster := &fakeQueue{}, &fakePoster{}
	p := &Poller{Source: MaildirSource(dir), Queue: q, Tested: st, Poster: poster}
	if n, err := p.Poll(context.Background()); n != 0 || err != nil || len(q.jobs) != 0 {
		t.Fatalf("poll queued %d, %v, %+v; want nothing", n, err, q.jobs)
	}
	if len(poster.posts) != 1 || poster.posts[0].to.String() != "mail:dev@example.org" {
		t.Errorf("answers %+v, want one polite reply to dev@example.org", poster.posts)
	}
}
