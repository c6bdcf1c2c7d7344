package mail

import (
	"bytes"
	"context"
	"fmt"
	"net/smtp"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	gomail "github.com/emersion/go-message/mail"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/internal/gitrepo"
	"github.com/perfbot/perfbot/internal/storetest"
	"github.com/perfbot/perfbot/job/jobspec"
	"github.com/perfbot/perfbot/trigger"
	"github.com/perfbot/perfbot/venue/mail"
)

const list = "sums-dev@lists.example.org"

// formatPatch makes a series with the real git format-patch, as git
// send-email sends it, and returns its mails in order (cover letter
// first) and the cover letter's Message-ID.
func formatPatch(t *testing.T, r *gitrepo.Repo, dir string, args ...string) ([]string, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), dir)
	r.Git(append([]string{"format-patch", "-q", "--cover-letter", "--thread=shallow", "-o", out}, append(args, "main..HEAD")...)...)
	files, _ := filepath.Glob(filepath.Join(out, "*.patch"))
	var mails []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m := strings.Replace(string(data), "*** SUBJECT HERE ***", "Faster sums", 1)
		m = strings.Replace(m, "*** BLURB HERE ***", "This series makes sums faster.", 1)
		mails = append(mails, m)
	}
	id := regexp.MustCompile(`(?mi)^Message-ID: <([^>]+)>`).FindStringSubmatch(mails[0])
	if id == nil {
		t.Fatalf("no Message-ID in the cover letter:\n%s", mails[0])
	}
	return mails, id[1]
}

// viaList turns a format-patch mail into the mail a list member receives:
// the mbox "From " line gone (git send-email drops it), To the list, the
// list's tag in front of the subject and its List-* headers, as Mailman
// writes them.
func viaList(m string) string {
	_, m, _ = strings.Cut(m, "\n") // "From <commit> Mon Sep 17 00:00:00 2001"
	m = strings.Replace(m, "\nSubject: ", "\nSubject: [sums-dev] ", 1)
	hdr := "To: " + list + "\nList-Id: Sums developers <sums-dev.lists.example.org>\nList-Post: <mailto:" + list + ">\n"
	return strings.ReplaceAll(hdr+m, "\n", "\r\n")
}

func deliver(t *testing.T, dir string, n int, m string) {
	t.Helper()
	for _, sub := range []string{"new", "cur", "tmp"} {
		os.MkdirAll(filepath.Join(dir, sub), 0o755)
	}
	if err := os.WriteFile(filepath.Join(dir, "new", fmt.Sprintf("%d.%d.host", time.Now().UnixNano(), n)), []byte(m), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestGitSendEmailSeries: v1 of a series and v2 sent In-Reply-To v1's
// cover letter (git format-patch --cover-letter -v2 --in-reply-to=...),
// through a list that tags subjects, are two jobs, each answered in its
// own thread: In-Reply-To its own cover letter, References root first and
// parent last, "Re: " and the cover letter's exact subject, to the list
// with the author in Cc. With PERFBOT_TEST_POSTFIX=1 the mails travel
// through the local postfix first, as git send-email sends them.
func TestGitSendEmailSeries(t *testing.T) {
	r := gitrepo.New(t)
	r.Commit("initial", map[string]string{"sum.go": "package sum\n"})
	r.Git("checkout", "-q", "-b", "faster")
	r.Commit("sum: add a loop", map[string]string{"sum.go": "package sum\n\n// loop\n"})
	r.Commit("sum: unroll the loop", map[string]string{"sum.go": "package sum\n\n// loop, unrolled\n"})
	r.Commit("sum: test it", map[string]string{"sum_test.go": "package sum\n"})
	v1, v1Cover := formatPatch(t, r, "v1", "--subject-prefix=PATCH net-next")
	// v2 reworks the last patch. git names mails by the second of the
	// head commit: amend it in the next second, as a real v2 comes days
	// later.
	time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second)))
	r.Git("commit", "-q", "--amend", "-m", "sum: test it")
	v2, v2Cover := formatPatch(t, r, "v2", "-v2", "--subject-prefix=PATCH net-next", "--in-reply-to=<"+v1Cover+">")
	if len(v1) != 4 || len(v2) != 4 {
		t.Fatalf("format-patch made %d and %d mails, want 4 each", len(v1), len(v2))
	}

	dir := t.TempDir()
	var mails []string
	for _, m := range append(v1, v2...) {
		mails = append(mails, viaList(m))
	}
	if os.Getenv("PERFBOT_TEST_POSTFIX") == "1" {
		mails = throughPostfix(t, mails)
	}
	for i, m := range mails {
		deliver(t, dir, i, m)
	}

	q := &fakeQueue{}
	p := &Poller{Source: MaildirSource(dir), Queue: q, Tested: storetest.SQLite(t),
		Policy: trigger.Policy{AllowSenders: []string{"test@example.org"}}}
	if n, err := p.Poll(context.Background()); err != nil || n != 2 {
		t.Fatalf("poll queued %d, %v; want 2 (v1 and v2)", n, err)
	}
	want := map[string]struct {
		subject string
		refs    []string
	}{
		v1Cover: {"[sums-dev] [PATCH net-next 0/3] Faster sums", []string{v1Cover}},
		v2Cover: {"[sums-dev] [PATCH net-next v2 0/3] Faster sums", []string{v1Cover, v2Cover}},
	}
	for _, j := range q.jobs {
		w, ok := want[j.InReplyTo]
		if !ok {
			t.Fatalf("job %s answers %s, not a cover letter", j.Key, j.InReplyTo)
		}
		delete(want, j.InReplyTo)
		if j.Subject != w.subject {
			t.Errorf("job %s subject %q, want %q", j.Key, j.Subject, w.subject)
		}
		if strings.Join(j.References, " ") != strings.Join(w.refs, " ") {
			t.Errorf("job %s references %q, want %q", j.Key, j.References, w.refs)
		}
		if j.Targets[0].String() != "mail:"+list+"?cc=test%40example.org" {
			t.Errorf("job %s targets %q", j.Key, j.Targets)
		}
		checkApplies(t, r, j.Patch)
		checkAnswer(t, j, w.subject, w.refs)
	}
}

// checkApplies applies a job's mbox with git am on main.
func checkApplies(t *testing.T, r *gitrepo.Repo, mbox string) {
	t.Helper()
	f := filepath.Join(t.TempDir(), "series.mbox")
	if err := os.WriteFile(f, []byte(mbox), 0o644); err != nil {
		t.Fatal(err)
	}
	r.Git("checkout", "-q", "-B", "try", "main")
	r.Git("am", "-q", f)
	if got := r.Git("log", "--format=%s", "main..HEAD"); got != "sum: test it\nsum: unroll the loop\nsum: add a loop" {
		t.Errorf("git am applied:\n%s", got)
	}
	r.Git("checkout", "-q", "faster")
}

// checkAnswer composes the answer to a job as the service does and reads
// its headers back.
func checkAnswer(t *testing.T, j jobspec.Spec, subject string, refs []string) {
	t.Helper()
	var to, cc []*gomail.Address
	for _, a := range j.Targets[0].To {
		to = append(to, &a)
	}
	for _, a := range j.Targets[0].Cc {
		cc = append(cc, &a)
	}
	msg := answer.Answer{Key: j.Key, Subject: j.Subject, InReplyTo: j.InReplyTo, References: j.References,
		Renderings: map[answer.Format]answer.Rendering{answer.Text: {Full: "perfbot: 1 better, 0 worse\n"}}}
	var buf bytes.Buffer
	if _, err := mail.Compose(&buf, mail.Outgoing{From: &gomail.Address{Address: "perfbot@example.org"}, To: to, Cc: cc, Msg: msg}); err != nil {
		t.Fatal(err)
	}
	r, err := gomail.CreateReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	h := r.Header
	if s, _ := h.Subject(); s != "Re: "+subject {
		t.Errorf("answer subject %q, want %q", s, "Re: "+subject)
	}
	if irt, _ := h.MsgIDList("In-Reply-To"); strings.Join(irt, " ") != j.InReplyTo {
		t.Errorf("In-Reply-To %v, want %s", irt, j.InReplyTo)
	}
	if got, _ := h.MsgIDList("References"); strings.Join(got, " ") != strings.Join(refs, " ") {
		t.Errorf("References %v, want %v (root first, parent last)", got, refs)
	}
	if got := h.Get("To") + " / " + h.Get("Cc"); got != "<"+list+"> / <test@example.org>" {
		t.Errorf("To / Cc = %s", got)
	}
}

// throughPostfix sends each mail through the local postfix on
// 127.0.0.1:25 to the test mailbox, as git send-email does, and returns
// them as delivered.
func throughPostfix(t *testing.T, mails []string) []string {
	t.Helper()
	rcpt := envOr("PERFBOT_TEST_POSTFIX_RCPT", "perfbot-test@localhost")
	maildir := envOr("PERFBOT_TEST_POSTFIX_MAILDIR", "/home/perfbot-test/Maildir")
	idRE := regexp.MustCompile(`(?mi)^Message-ID: <([^>]+)>`)
	var out []string
	for _, m := range mails {
		if err := sendPlain(rcpt, m); err != nil {
			t.Fatalf("send through postfix: %v", err)
		}
		id := idRE.FindStringSubmatch(m)[1]
		out = append(out, string(waitFor(t, maildir, "<"+id+">")))
	}
	return out
}

// sendPlain sends as git send-email does with no smtpEncryption set.
func sendPlain(rcpt, m string) error {
	c, err := smtp.Dial("127.0.0.1:25")
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.Mail("test@example.org"); err != nil {
		return err
	}
	if err := c.Rcpt(rcpt); err != nil {
		return err
	}
	w, err := c.Data()
	if err != nil {
		return err
	}
	if _, err := w.Write([]byte(m)); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return c.Quit()
}

func waitFor(t *testing.T, maildir, id string) []byte {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		ents, _ := os.ReadDir(filepath.Join(maildir, "new"))
		for _, e := range ents {
			data, err := os.ReadFile(filepath.Join(maildir, "new", e.Name()))
			if err == nil && bytes.Contains(data, []byte(id)) {
				return data
			}
		}
	}
	t.Fatalf("%s did not arrive in %s/new within 30s", id, maildir)
	return nil
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

// TestSeriesWaitExpires: a series still missing a part when series_wait
// has passed since its first mail gets one note in its thread, to the list
// with the author in Cc, under the cover letter's subject; a series within
// the wait gets none.
func TestSeriesWaitExpires(t *testing.T) {
	dir := t.TempDir()
	old := time.Now().Add(-80 * time.Hour).Truncate(time.Second)
	sendEmail(t, dir, "cover@example.org", "", "[PATCH v3 0/2] Faster WAL", "blurb\n", old)
	sendEmail(t, dir, "p1@example.org", "cover@example.org", "[PATCH v3 1/2] wal: a", patchBody("a.go"), old.Add(time.Second))
	recent := time.Now().Add(-time.Hour).Truncate(time.Second)
	sendEmail(t, dir, "fresh@example.org", "", "[PATCH 1/2] cache: a", patchBody("c.go"), recent)
	q, poster := &fakeQueue{}, &fakePoster{}
	p := &Poller{Source: MaildirSource(dir), Queue: q, Tested: storetest.SQLite(t), List: "store-dev@lists.example.org",
		SeriesWait: 72 * time.Hour, Poster: poster, Policy: trigger.Policy{AllowSenders: []string{"@example.org"}}}
	for range 2 {
		if n, err := p.Poll(context.Background()); n != 0 || err != nil {
			t.Fatalf("poll queued %d, %v", n, err)
		}
	}
	if len(poster.posts) != 1 {
		t.Fatalf("%d notes, want one: %+v", len(poster.posts), poster.posts)
	}
	n := poster.posts[0]
	if n.to.String() != "mail:store-dev@lists.example.org?cc=dev%40example.org" || n.msg.Subject != "[PATCH v3 0/2] Faster WAL" ||
		n.msg.InReplyTo != "cover@example.org" || !strings.Contains(n.msg.Full(answer.Text), "waited 3 days") || !strings.Contains(n.msg.Full(answer.Text), "patch 2/2 never arrived") {
		t.Errorf("note %s: %+v", n.to, n.msg)
	}
}

func TestThreadRefsBounded(t *testing.T) {
	m := &Message{ID: "me@x", InReplyTo: "r99@x"}
	for i := range 100 {
		m.References = append(m.References, fmt.Sprintf("r%d@x", i))
	}
	refs := threadRefs(m)
	if len(refs) != maxRefs || refs[0] != "r0@x" || refs[len(refs)-2] != "r99@x" || refs[len(refs)-1] != "me@x" {
		t.Errorf("refs = %v: want the root, the newest, then the mail itself, %d in all", refs, maxRefs)
	}
}
