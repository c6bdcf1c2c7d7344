package mail_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	gomail "github.com/emersion/go-message/mail"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/config"
	mailintake "github.com/perfbot/perfbot/intake/mail"
	"github.com/perfbot/perfbot/internal/storetest"
	"github.com/perfbot/perfbot/job/jobspec"
	"github.com/perfbot/perfbot/service"
	"github.com/perfbot/perfbot/target"
	"github.com/perfbot/perfbot/trigger"
	"github.com/perfbot/perfbot/venue/mail"
)

type posted struct {
	to  target.Target
	msg answer.Answer
}

// recorder is the mail poster's place: it keeps what would be sent.
type recorder struct {
	mu    sync.Mutex
	posts []posted
}

func (r *recorder) Post(_ context.Context, to target.Target, msg answer.Answer) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.posts = append(r.posts, posted{to, msg})
	return "<" + msg.Key + ">", nil
}

type noQueue struct{ jobs []jobspec.Spec }

func (q *noQueue) Enqueue(_ context.Context, spec jobspec.Spec) (int64, bool, error) {
	q.jobs = append(q.jobs, spec)
	return int64(len(q.jobs)), false, nil
}

// deliver writes a mail into the maildir's new folder, as the list
// delivers it: header lines, a blank line, the body.
func deliver(t *testing.T, dir, name string, at time.Time, header []string, body string) {
	t.Helper()
	for _, sub := range []string{"new", "cur", "tmp"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	text := strings.Join(header, "\r\n") + "\r\nDate: " + at.Format(time.RFC1123Z) + "\r\n\r\n" + strings.ReplaceAll(body, "\n", "\r\n")
	path := filepath.Join(dir, "new", fmt.Sprintf("%d.%s.host", at.UnixNano(), name))
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, at, at); err != nil {
		t.Fatal(err)
	}
}

// TestFalseAlarmReply: a reply in the thread of an answered series, from
// a sender the policy lets run patches, whose own text says "/perfbot
// false-alarm BENCH -- REASON", marks that verdict of the series' latest
// run once, by the sender's address, however often the maildir is read
// (two polls, then a restarted poller), and is acknowledged in the
// thread. A reply from anyone else, a quoted command, perfbot's own
// answer and a thread without a run mark nothing.
func TestFalseAlarmReply(t *testing.T) {
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
	st := svc.Store()
	const (
		list     = "store-dev@lists.example.org"
		cover    = "20261130081500.1-cover@example.org"
		answerID = "perfbot.mail_20261130081500.1-cover_example.org_v1@example.org"
	)
	run := storetest.AnsweredRunKey(t, st, mailintake.SeriesKey(cover, 1), "mail", list+"?cc=dev%40example.org", "ci-1")

	dir := t.TempDir()
	now := time.Now().Add(-time.Hour).Truncate(time.Second)
	thread := "In-Reply-To: <" + answerID + ">\r\nReferences: <" + cover + "> <" + answerID + ">"
	head := func(from, id, subject string) []string {
		return []string{"From: " + from, "To: " + list, "Subject: " + subject, "Message-Id: <" + id + ">", "MIME-Version: 1.0"}
	}
	// perfbot's own answer comes back from the list; its text names the
	// command, but it is never read as one.
	deliver(t, dir, "answer", now, append(head("perfbot <perfbot@example.org>", answerID, "Re: [PATCH 0/2] wal: batch syncs"),
		"In-Reply-To: <"+cover+">", "References: <"+cover+">", "X-Perfbot-Key: mail:"+cover+"/v1",
		"Auto-Submitted: auto-generated", "Content-Type: text/plain; charset=utf-8"),
		"Checksum-2 got worse. Write /perfbot false-alarm BENCH to mark a verdict.\n/perfbot false-alarm Checksum\n")
	// The reviewer's reply: multipart, quoted-printable, the answer quoted.
	deliver(t, dir, "mark", now.Add(time.Second), append(head("Rita Reviewer <rita@example.org>", "mark-1@example.org", "Re: [PATCH 0/2] wal: batch syncs"),
		thread, `Content-Type: multipart/alternative; boundary="b1"`), strings.Join([]string{
		"--b1",
		"Content-Type: text/plain; charset=utf-8",
		"Content-Transfer-Encoding: quoted-printable",
		"",
		"On Mon, perfbot wrote:",
		"> Checksum-2 got worse.",
		"> /perfbot false-alarm Append",
		"",
		"/perfbot false-alarm Checksum -- the runner was busy =E2=80=94 a backup r=",
		"an",
		"--b1",
		"Content-Type: text/html; charset=utf-8",
		"",
		"<p>/perfbot false-alarm Append</p>",
		"--b1--",
		""}, "\n"))
	// Only a quoted command.
	deliver(t, dir, "quoted", now.Add(2*time.Second), append(head("Rita Reviewer <rita@example.org>", "quote-1@example.org", "Re: [PATCH 0/2] wal: batch syncs"), thread),
		"> /perfbot false-alarm Checksum\n\nAgreed with the above.\n")
	// A sender the policy does not let run patches.
	deliver(t, dir, "mallory", now.Add(3*time.Second), append(head("Mallory <mallory@evil.test>", "evil-1@evil.test", "Re: [PATCH 0/2] wal: batch syncs"), thread),
		"/perfbot false-alarm Checksum\n")
	// An allowed sender in a thread perfbot never answered.
	deliver(t, dir, "other", now.Add(4*time.Second), append(head("Rita Reviewer <rita@example.org>", "other-1@example.org", "Re: [PATCH] cache: bigger"),
		"In-Reply-To: <lone@example.org>", "References: <lone@example.org>"), "/perfbot false-alarm Checksum\n")

	poster := &recorder{}
	var logs bytes.Buffer
	poller := func() *mailintake.Poller {
		return &mailintake.Poller{Source: mailintake.MaildirSource(dir), Queue: &noQueue{}, Tested: st, List: list,
			Policy: trigger.Policy{AllowSenders: []string{"@example.org"}}, Poster: poster, Marks: svc,
			Log: slog.New(slog.NewTextHandler(&logs, nil))}
	}
	ctx := context.Background()
	p := poller()
	for i := range 2 {
		if n, err := p.Poll(ctx); n != 0 || err != nil {
			t.Fatalf("poll %d: queued %d, %v", i, n, err)
		}
	}
	// perfbot restarts: a new poller reads the whole maildir again.
	if n, err := poller().Poll(ctx); n != 0 || err != nil {
		t.Fatalf("poll after a restart: queued %d, %v", n, err)
	}

	marks, err := st.FalseAlarmsOfRun(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(marks) != 1 {
		t.Fatalf("marks %+v, want one, rita's\n%s", marks, logs.String())
	}
	m := marks[0]
	if m.By != "rita@example.org" || m.Venue != "mail" || m.Host != "ci-1" || m.Key.Benchmark != "Checksum-2" ||
		m.Verdict != "worse" || m.Reason != "the runner was busy — a backup ran" {
		t.Errorf("mark %+v", m)
	}
	if len(poster.posts) != 2 {
		t.Fatalf("sent %d mails, want the acknowledgement and the answer in the other thread: %+v", len(poster.posts), poster.posts)
	}
	ack, other := poster.posts[0], poster.posts[1]
	if ack.to.String() != "mail:"+list+"?cc=rita%40example.org" || ack.msg.InReplyTo != "mark-1@example.org" ||
		strings.Join(ack.msg.References, " ") != cover+" "+answerID+" mark-1@example.org" || ack.msg.Key != "mail:mark-1@example.org/false-alarm" {
		t.Errorf("acknowledgement sent to %s: %+v", ack.to, ack.msg)
	}
	if text := ack.msg.Full(answer.Text); !strings.Contains(text, fmt.Sprintf("marked 1 verdict of run %d a false alarm:", run.ID)) ||
		!strings.Contains(text, "Checksum-2 ns/op (worse") || !strings.Contains(text, "on host ci-1") {
		t.Errorf("acknowledgement:\n%s", text)
	}
	if other.msg.InReplyTo != "other-1@example.org" || !strings.Contains(other.msg.Full(answer.Text), "no finished benchmark run in this thread") {
		t.Errorf("answer in the other thread: %+v\n%s", other.msg, other.msg.Full(answer.Text))
	}

	// The acknowledgement is a mail in the thread, as the mail poster
	// composes it.
	var buf bytes.Buffer
	if _, err := mail.Compose(&buf, mail.Outgoing{From: &gomail.Address{Address: "perfbot@example.org"},
		To: []*gomail.Address{{Address: list}}, Msg: ack.msg}); err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"In-Reply-To: <mark-1@example.org>", "References: <" + cover + ">\r\n <" + answerID + ">\r\n <mark-1@example.org>",
		"Subject: Re: [PATCH 0/2] wal: batch syncs", "Auto-Submitted: auto-generated"} {
		if !strings.Contains(buf.String(), h) {
			t.Errorf("composed acknowledgement lacks %q:\n%s", h, buf.String())
		}
	}
}

// flaky fails the first mark as a store that is down would.
type flaky struct {
	mailintake.ThreadMarker
	failed bool
}

func (f *flaky) MarkFalseAlarmInThread(ctx context.Context, thread []string, who string, benches []string, reason string) (string, error) {
	if !f.failed {
		f.failed = true
		return "", errors.New("database is locked")
	}
	return f.ThreadMarker.MarkFalseAlarmInThread(ctx, thread, who, benches, reason)
}

// failingPoster fails every answer, as an SMTP server that refuses.
type failingPoster struct{ tries int }

func (f *failingPoster) Post(context.Context, target.Target, answer.Answer) (string, error) {
	f.tries++
	return "", errors.New("smtp: 554 refused")
}

// TestFalseAlarmReplyFailures: a mark that fails to record is tried again
// at the next poll (the maildir returns each file once); an answer that
// fails to send does not mark again.
func TestFalseAlarmReplyFailures(t *testing.T) {
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
	st := svc.Store()
	run := storetest.AnsweredRunKey(t, st, mailintake.SeriesKey("lone@example.org", 2), "mail", "dev@example.org", "ci-1")
	dir := t.TempDir()
	deliver(t, dir, "mark", time.Now().Add(-time.Minute), []string{"From: rita@example.org", "Subject: Re: [PATCH v2] x",
		"Message-Id: <mark-2@example.org>", "In-Reply-To: <lone@example.org>"}, "/perfbot false-alarm Checksum-2\n")
	poster := &failingPoster{}
	p := &mailintake.Poller{Source: mailintake.MaildirSource(dir), Queue: &noQueue{}, Tested: st, List: "dev@lists.example.org",
		Policy: trigger.Policy{AllowSenders: []string{"rita@example.org"}}, Poster: poster, Marks: &flaky{ThreadMarker: svc}}
	ctx := context.Background()
	if _, err := p.Poll(ctx); err == nil || !strings.Contains(err.Error(), "database is locked") {
		t.Fatalf("first poll: %v, want the failure to record", err)
	}
	if marks, _ := st.FalseAlarmsOfRun(ctx, run.ID); len(marks) != 0 || poster.tries != 0 {
		t.Fatalf("after a failure to record: marks %+v, %d answers tried", marks, poster.tries)
	}
	if _, err := p.Poll(ctx); err == nil || !strings.Contains(err.Error(), "554") {
		t.Fatalf("second poll: %v, want the failure to answer", err)
	}
	for i := range 2 {
		if _, err := p.Poll(ctx); err != nil {
			t.Fatalf("poll %d after the failed answer: %v", i, err)
		}
	}
	marks, err := st.FalseAlarmsOfRun(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(marks) != 1 || marks[0].By != "rita@example.org" || poster.tries != 1 {
		t.Errorf("marks %+v, %d answers tried; want one mark and one try", marks, poster.tries)
	}
}
