package mail

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	gomail "github.com/emersion/go-message/mail"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/internal/storetest"
	"github.com/perfbot/perfbot/trigger"
	"github.com/perfbot/perfbot/venue/mail"
)

// bigMail writes an ordinary mail of size bytes into the maildir's new
// folder: its header, then a body that is a hole in the file (sparse, so
// the test costs no disk), which reads as zeros.
func bigMail(t testing.TB, dir, name, subject string, size int64, at time.Time) string {
	t.Helper()
	for _, sub := range []string{"new", "cur", "tmp"} {
		os.MkdirAll(filepath.Join(dir, sub), 0o755)
	}
	path := filepath.Join(dir, "new", name)
	hdr := fmt.Sprintf("From: Someone <someone@example.org>\r\nTo: store-dev@lists.example.org\r\nSubject: %s\r\n"+
		"Message-Id: <%s@example.org>\r\nDate: %s\r\n\r\nHello,\r\n", subject, name, at.Format(time.RFC1123Z))
	if err := os.WriteFile(path, []byte(hdr), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, size); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(path, at, at)
	return path
}

// allocated runs f and returns the bytes the process allocated meanwhile.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestPollReadsOnlyNewMail: a poll of a maildir holding 256 MiB of
// ordinary mail reads their headers once, never their bodies; later polls
// read only the files that came since; a mail larger than the limit is
// skipped, named in the log, unread.
func TestPollReadsOnlyNewMail(t *testing.T) {
	dir := t.TempDir()
	now := time.Now().Add(-time.Hour).Truncate(time.Second)
	const big = 4 << 20
	for i := range 64 {
		bigMail(t, dir, fmt.Sprintf("%d.big%d.host", now.UnixNano()+int64(i), i), "Weekly numbers", big, now)
	}
	huge := bigMail(t, dir, fmt.Sprintf("%d.huge.host", now.UnixNano()), "[PATCH] huge", DefaultMaxSize+1, now)

	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	q := &fakeQueue{}
	p := &Poller{Source: Maildir{Dir: dir, Log: log}.Source(), Queue: q, Tested: storetest.SQLite(t),
		Policy: trigger.Policy{AllowSenders: []string{"dev@example.org"}}, Log: log}
	ctx := context.Background()
	poll := func(name string, most uint64) {
		t.Helper()
		var err error
		n := allocated(func() { _, err = p.Poll(ctx) })
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		t.Logf("%s: %d KiB allocated", name, n>>10)
		if n > most {
			t.Errorf("%s allocated %d KiB, want at most %d KiB: mails read whole", name, n>>10, most>>10)
		}
	}
	// Headers alone: 65 files, a few KiB each, against 266 MiB whole.
	poll("first poll", 16<<20)
	if strings.Count(logs.String(), "mail skipped") != 1 || !strings.Contains(logs.String(), huge) {
		t.Errorf("log does not name the oversized mail %s once:\n%s", huge, logs.String())
	}
	// One more big ordinary mail and one patch: the patch is read whole,
	// the other by its header.
	bigMail(t, dir, fmt.Sprintf("%d.later.host", time.Now().UnixNano()), "Re: Weekly numbers", 8<<20, time.Now())
	sendEmail(t, dir, "lone@example.org", "", "[PATCH] docs: fix typo", patchBody("README"), time.Now())
	poll("poll after two new mails", 2<<20)
	if len(q.jobs) != 1 || !strings.Contains(q.jobs[0].Patch, "diff --git a/README") {
		t.Fatalf("jobs %+v, want the new patch's", q.jobs)
	}
	poll("poll with nothing new", 1<<20)
	if strings.Count(logs.String(), "mail skipped") != 1 {
		t.Errorf("the oversized mail was logged again:\n%s", logs.String())
	}
}

// TestForgedRefusalsRationed: patches with forged senders get few
// refusals: one per address per period (twenty mails "from" one victim,
// one refusal), and RefusalsPerPeriod in all (twenty more from twenty
// addresses); none carries the subject or any text the sender chose, and
// the mails are referred to by Message-ID in the header alone.
func TestForgedRefusalsRationed(t *testing.T) {
	dir := t.TempDir()
	now := time.Now().Add(-time.Hour).Truncate(time.Second)
	const spam = "BUY NOW http://spam.test \x1b]8;;http://evil.test\x07click\x1b]8;;\x07"
	for i := range 20 {
		sendEmailFrom(t, dir, "Victim <victim@example.net>", fmt.Sprintf("v%d@spam.test", i), "",
			fmt.Sprintf("[PATCH] %s %d", spam, i), patchBody("a.go"), now.Add(time.Duration(i)*time.Second))
	}
	for i := range 20 {
		sendEmailFrom(t, dir, fmt.Sprintf("Victim %d <victim%d@example.net>", i, i), fmt.Sprintf("w%d@spam.test", i), "",
			fmt.Sprintf("[PATCH 1/1] %s", spam), patchBody("b.go"), now.Add(time.Minute+time.Duration(i)*time.Second))
	}
	q, poster := &fakeQueue{}, &fakePoster{}
	p := &Poller{Source: MaildirSource(dir), Queue: q, Tested: storetest.SQLite(t), Poster: poster,
		Policy: trigger.Policy{AllowSenders: []string{"dev@example.org"}}, Log: slog.New(slog.DiscardHandler)}
	for range 3 {
		if _, err := p.Poll(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if len(q.jobs) != 0 {
		t.Fatalf("queued %d jobs from strangers", len(q.jobs))
	}
	if len(poster.posts) != DefaultRefusalsPerPeriod {
		t.Errorf("sent %d refusals, want %d (one to victim@, the rest of the period's ration to others)", len(poster.posts), DefaultRefusalsPerPeriod)
	}
	per := map[string]int{}
	for _, ps := range poster.posts {
		per[ps.to.Where()]++
		if per[ps.to.Where()] > 1 {
			t.Errorf("%s got %d refusals", ps.to.Where(), per[ps.to.Where()])
		}
		var b bytes.Buffer
		if _, err := mail.Compose(&b, mail.Outgoing{From: &gomail.Address{Address: "perfbot@example.org"},
			To: []*gomail.Address{{Address: ps.to.Where()}}, Msg: ps.msg}); err != nil {
			t.Fatal(err)
		}
		for _, text := range []string{b.String(), ps.msg.Full(answer.Text), ps.msg.Subject} {
			if strings.Contains(text, "BUY") || strings.Contains(text, "evil") || strings.Contains(text, "\x1b") || strings.Contains(text, "click") {
				t.Errorf("refusal to %s carries the sender's text:\n%s", ps.to.Where(), text)
			}
		}
		if !strings.Contains(b.String(), "In-Reply-To: <"+ps.msg.InReplyTo+">") || !strings.Contains(b.String(), "Subject: Re: "+RefusalSubject) {
			t.Errorf("refusal is not a reply by Message-ID with perfbot's subject:\n%s", b.String())
		}
	}
	if per["victim@example.net"] != 1 {
		t.Errorf("victim@example.net got %d refusals for 20 mails, want 1", per["victim@example.net"])
	}
}

// TestHostileMessageID: a Message-ID that could break a header or a
// terminal is refused when the mail is read; one in References is dropped.
func TestHostileMessageID(t *testing.T) {
	for _, id := range []string{"a\x1b[31m@x", "a b@x", "a\"@x", strings.Repeat("a", 300) + "@x", "a\u202e@x"} {
		raw := "Message-Id: <" + id + ">\nSubject: [PATCH] x\n\nbody\n"
		if _, err := ParseMessage([]byte(raw), "m"); err == nil || !strings.Contains(err.Error(), "malformed Message-ID") {
			t.Errorf("Message-ID %q: err %v, want malformed", id, err)
		}
	}
	m, err := ParseMessage([]byte("Message-Id: <ok@x>\nReferences: <r1@x> <bad\x1b@x> <r2@x>\nIn-Reply-To: <\x07@x>\nSubject: [PATCH] x\n\n"), "m")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(m.References, " ") != "r1@x r2@x" || m.InReplyTo != "" {
		t.Errorf("references %q, in-reply-to %q; want the well-formed ones", m.References, m.InReplyTo)
	}
}

// BenchmarkPollNewMail polls a maildir of 256 MiB of ordinary mail after
// one more 4 MiB mail came: the bytes allocated per poll are those of the
// new header, not of the maildir.
func BenchmarkPollNewMail(b *testing.B) {
	dir := b.TempDir()
	now := time.Now().Add(-time.Hour)
	for i := range 64 {
		bigMail(b, dir, fmt.Sprintf("%d.big%d.host", now.UnixNano()+int64(i), i), "Weekly numbers", 4<<20, now)
	}
	p := &Poller{Source: Maildir{Dir: dir, Log: slog.New(slog.DiscardHandler)}.Source(), Queue: &fakeQueue{},
		Tested: storetest.SQLite(b), Log: slog.New(slog.DiscardHandler)}
	ctx := context.Background()
	if _, err := p.Poll(ctx); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		b.StopTimer()
		bigMail(b, dir, fmt.Sprintf("%d.new%d.host", time.Now().UnixNano(), i), "Re: Weekly numbers", 4<<20, time.Now())
		i++
		b.StartTimer()
		if _, err := p.Poll(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
