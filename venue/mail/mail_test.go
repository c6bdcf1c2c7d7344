package mail

import (
	"bytes"
	"context"
	"crypto/tls"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-message"
	gomail "github.com/emersion/go-message/mail"
	"github.com/emersion/go-smtp"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/target"
	"github.com/perfbot/perfbot/venue/retry"
)

var png = []byte("\x89PNG\r\n\x1a\n fake chart bytes")

// rich is the Format with everything: HTML, inline charts, attachments.
var rich = Format{HTML: true, Attach: true}

func report() answer.Answer {
	return answer.Answer{Key: "job-42/wal", Subject: "[PATCH v2 1/3] wal: batch syncs", Summary: "1 better, 0 worse", Attachments: []answer.Attachment{
		{Name: "wal-threads.png", ContentType: "image/png", Data: png, Inline: true},
		{Name: "results.json", ContentType: "application/json", Data: []byte(`{"threads":10}`)},
	}, InReplyTo: "<20261130.patch1@sender.example>", References: []string{"<20261130.cover@sender.example>"}, Renderings: map[answer.Format]answer.Rendering{answer.Text: {Full: "Threads  Default  Async  Diff\n     10     1.00   3.70  3.7x\n"}, answer.HTML: {Full: `<table><tr><td>3.7x</td></tr></table><img src="cid:wal-threads.png">`}}}
}

// part is one leaf or container of a parsed message, by depth-first path.
type part struct {
	path, typ, disp, filename, cid string
	body                           []byte
}

func walk(t *testing.T, e *message.Entity, path string, out *[]part) {
	t.Helper()
	typ, _, _ := e.Header.ContentType()
	path += "/" + typ
	if mr := e.MultipartReader(); mr != nil {
		*out = append(*out, part{path: path, typ: typ})
		for {
			p, err := mr.NextPart()
			if err == io.EOF {
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			walk(t, p, path, out)
		}
	}
	disp, params, _ := e.Header.ContentDisposition()
	body, err := io.ReadAll(e.Body)
	if err != nil {
		t.Fatal(err)
	}
	*out = append(*out, part{path: path, typ: typ, disp: disp, filename: params["filename"], cid: e.Header.Get("Content-ID"), body: body})
}

// checkReport parses raw and checks the headers and every part.
func checkReport(t *testing.T, raw []byte, wantTo string) {
	t.Helper()
	checkReportFrom(t, raw, wantTo, "job-42_wal", "example.org")
}

// checkReportFrom checks a report sent for a key (as sanitised in the
// Message-ID) from a sender in domain.
func checkReportFrom(t *testing.T, raw []byte, wantTo, key, domain string) {
	t.Helper()
	e, err := message.Read(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	h := gomail.Header{Header: e.Header}
	if id, _ := h.MessageID(); !strings.HasPrefix(id, "perfbot."+key) || !strings.HasSuffix(id, "@"+domain) {
		t.Errorf("Message-ID %q", id)
	}
	if irt, _ := h.MsgIDList("In-Reply-To"); len(irt) != 1 || irt[0] != "20261130.patch1@sender.example" {
		t.Errorf("In-Reply-To %v", irt)
	}
	if refs, _ := h.MsgIDList("References"); strings.Join(refs, " ") != "20261130.cover@sender.example 20261130.patch1@sender.example" {
		t.Errorf("References %v", refs)
	}
	if s, _ := h.Subject(); s != "Re: [PATCH v2 1/3] wal: batch syncs" {
		t.Errorf("Subject %q", s)
	}
	if to := h.Get("To"); !strings.Contains(to, wantTo) {
		t.Errorf("To %q, want %q", to, wantTo)
	}
	if from, err := h.AddressList("From"); err != nil || len(from) != 1 || from[0].Name != "perfbot" || from[0].Address != "perfbot@"+domain {
		t.Errorf("From %q", from)
	}
	if d, err := h.Date(); err != nil || time.Since(d) > time.Hour {
		t.Errorf("Date %v %v", d, err)
	}
	var parts []part
	walk(t, e, "", &parts)
	var paths []string
	for _, p := range parts {
		paths = append(paths, p.path)
	}
	want := []string{
		"/multipart/mixed",
		"/multipart/mixed/multipart/related",
		"/multipart/mixed/multipart/related/multipart/alternative",
		"/multipart/mixed/multipart/related/multipart/alternative/text/plain",
		"/multipart/mixed/multipart/related/multipart/alternative/text/html",
		"/multipart/mixed/multipart/related/image/png",
		"/multipart/mixed/application/json",
	}
	if strings.Join(paths, "\n") != strings.Join(want, "\n") {
		t.Fatalf("structure:\n%s\nwant:\n%s", strings.Join(paths, "\n"), strings.Join(want, "\n"))
	}
	if strings.ReplaceAll(string(parts[3].body), "\r\n", "\n") != report().Full(answer.Text) {
		t.Errorf("text part %q", parts[3].body)
	}
	if !strings.Contains(string(parts[4].body), `src="cid:wal-threads.png"`) {
		t.Errorf("html part %q", parts[4].body)
	}
	if p := parts[5]; p.disp != "inline" || p.cid != "<wal-threads.png>" || !bytes.Equal(p.body, png) {
		t.Errorf("inline image %+v", p)
	}
	if p := parts[6]; p.disp != "attachment" || p.filename != "results.json" || string(p.body) != `{"threads":10}` {
		t.Errorf("attachment %+v", p)
	}
}

func TestComposeStable(t *testing.T) {
	from, _ := gomail.ParseAddress("perfbot <perfbot@example.org>")
	to := recipients("dev@lists.example.org")
	var a, b bytes.Buffer
	id1, err := Compose(&a, Outgoing{From: from, To: to, Msg: report(), Format: rich})
	if err != nil {
		t.Fatal(err)
	}
	id2, _ := Compose(&b, Outgoing{From: from, To: to, Msg: report(), Format: rich})
	if id1 != id2 || !strings.HasSuffix(id1, "@example.org") {
		t.Errorf("ids %q %q: want one stable id in the sender's domain", id1, id2)
	}
	checkReport(t, a.Bytes(), "dev@lists.example.org")
	if MessageID("a", "x.org") == MessageID("a/", "x.org") || MessageID("plain-key", "x.org") != "perfbot.plain-key@x.org" {
		t.Error("MessageID not distinct or not readable")
	}
}

func TestComposeWithoutHTMLOrAttachments(t *testing.T) {
	from, _ := gomail.ParseAddress("perfbot@example.org")
	to := recipients("a@example.org")
	var buf bytes.Buffer
	m := answer.Answer{Key: "k", Subject: "s\r\nBcc: x@evil.example", Renderings: map[answer.Format]answer.Rendering{answer.Text: {Full: "plain"}}}
	if _, err := Compose(&buf, Outgoing{From: from, To: to, Msg: m}); err != nil {
		t.Fatal(err)
	}
	e, _ := message.Read(&buf)
	if e.Header.Has("Bcc") {
		t.Error("subject injected a header")
	}
	var parts []part
	walk(t, e, "", &parts)
	if len(parts) != 1 || parts[0].typ != "text/plain" || string(parts[0].body) != "plain" {
		t.Errorf("parts %+v", parts)
	}
}

func newSender(t *testing.T, ts *testSMTP, user, pass string) *Sender {
	t.Helper()
	cfg := SMTPConfig{Addr: ts.addr, From: "perfbot <perfbot@example.org>", User: user, Password: pass, Format: rich,
		Retry: retry.Policy{Attempts: 5, Sleep: func(ctx context.Context, d time.Duration) error { return ctx.Err() }}}
	if ts.roots != nil {
		cfg.TLSConfig = &tls.Config{RootCAs: ts.roots}
	}
	s, err := NewSender(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSendSTARTTLSAndAuth(t *testing.T) {
	ts := startSMTP(t, smtpOptions{tls: true, user: "perfbot", pass: "smtp-Secret-pass"})
	s := newSender(t, ts, "perfbot", "smtp-Secret-pass")
	id, err := s.Post(context.Background(), target.MustParse("mail:dev@lists.example.org,author@sender.example"), report())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(id, "<perfbot.job-42_wal.") {
		t.Errorf("link %q", id)
	}
	got := ts.delivered(t)
	if len(got) != 1 || !ts.tls[0] || ts.authed != 1 {
		t.Fatalf("%d delivered, tls %v, authed %d", len(got), ts.tls, ts.authed)
	}
	if strings.Join(ts.rcpts[0], ",") != "dev@lists.example.org,author@sender.example" || ts.froms[0] != "perfbot@example.org" {
		t.Errorf("envelope %v from %v", ts.rcpts, ts.froms)
	}
	checkReport(t, got[0], "dev@lists.example.org")
}

func TestSendRetriesTransient(t *testing.T) {
	ts := startSMTP(t, smtpOptions{})
	ts.failRcpt = []*smtp.SMTPError{
		{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "Temporary lookup failure"},
		{Code: 421, EnhancedCode: smtp.EnhancedCode{4, 7, 0}, Message: "Try again later"},
		{Code: 452, EnhancedCode: smtp.EnhancedCode{4, 3, 1}, Message: "Insufficient system storage"},
	}
	s := newSender(t, ts, "", "")
	if _, err := s.Post(context.Background(), target.MustParse("mail:a@example.org"), report()); err != nil {
		t.Fatal(err)
	}
	if n := len(ts.delivered(t)); n != 1 {
		t.Errorf("%d delivered", n)
	}
}

func TestSendFailsFast(t *testing.T) {
	t.Run("5xx recipient", func(t *testing.T) {
		ts := startSMTP(t, smtpOptions{})
		ts.failRcpt = []*smtp.SMTPError{{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "No such user"}}
		s := newSender(t, ts, "", "")
		_, err := s.Post(context.Background(), target.MustParse("mail:nobody@example.org"), report())
		if err == nil || !strings.Contains(err.Error(), "No such user") || strings.Contains(err.Error(), "gave up") || retry.IsTransient(err) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("bad password", func(t *testing.T) {
		ts := startSMTP(t, smtpOptions{tls: true, user: "perfbot", pass: "right-password"})
		s := newSender(t, ts, "perfbot", "wrong-password-123")
		_, err := s.Post(context.Background(), target.MustParse("mail:a@example.org"), report())
		if err == nil || !strings.Contains(err.Error(), "535") || strings.Contains(err.Error(), "wrong-password-123") || strings.Contains(err.Error(), plainBlob("perfbot", "wrong-password-123")) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("untrusted certificate", func(t *testing.T) {
		ts := startSMTP(t, smtpOptions{tls: true, user: "perfbot", pass: "p4ssword"})
		ts.roots = nil // the client no longer trusts the server
		s := newSender(t, ts, "perfbot", "p4ssword")
		if _, err := s.Post(context.Background(), target.MustParse("mail:a@example.org"), report()); err == nil || !strings.Contains(err.Error(), "certificate") {
			t.Fatalf("err = %v", err)
		}
		if ts.authed != 0 {
			t.Error("password sent to an unverified server")
		}
	})
	t.Run("nothing listening", func(t *testing.T) {
		s, _ := NewSender(SMTPConfig{Addr: "127.0.0.1:1", From: "p@example.org", Retry: retry.Policy{Attempts: 2, Sleep: func(context.Context, time.Duration) error { return nil }}})
		if _, err := s.Post(context.Background(), target.MustParse("mail:a@example.org"), report()); err == nil || !strings.Contains(err.Error(), "gave up after 2 attempts") {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestConfigErrors(t *testing.T) {
	for _, cfg := range []SMTPConfig{
		{}, {Addr: "smtp.example.org", From: "p@example.org"}, {Addr: "smtp.example.org:587"},
		{Addr: "smtp.example.org:587", From: "not an address"}, {Addr: "smtp.example.org:587", From: "p@example.org", User: "u"},
	} {
		if _, err := NewSender(cfg); err == nil {
			t.Errorf("NewSender(%+v) succeeded", cfg)
		}
	}
	if isLoopback("smtp.example.org") || !isLoopback("127.0.0.1") || !isLoopback("::1") || !isLoopback("localhost") {
		t.Error("isLoopback")
	}
}

func TestReplyFor(t *testing.T) {
	parse := func(s string) gomail.Header {
		e, err := message.Read(strings.NewReader(strings.ReplaceAll(s, "\n", "\r\n") + "\r\n\r\nbody"))
		if err != nil {
			t.Fatal(err)
		}
		return gomail.Header{Header: e.Header}
	}
	tests := []struct {
		name, hdr string
		to, cc    string
	}{
		{"list", "From: Alice <alice@sender.example>\nMessage-ID: <p1@sender.example>\nReferences: <c0@sender.example>\nSubject: [PATCH 1/2] x\nList-Id: Store developers <dev.store.example.org>\nList-Post: <mailto:dev@store.example.org>", "dev@store.example.org", "alice@sender.example"},
		{"list takes no posts", "From: alice@sender.example\nMessage-ID: <p1@sender.example>\nList-Id: <announce.example.org>\nList-Post: NO", "alice@sender.example", ""},
		{"reply-to wins", "From: alice@sender.example\nReply-To: bob@sender.example\nMessage-ID: <p1@sender.example>", "bob@sender.example", ""},
		{"list with reply-to", "From: alice@sender.example\nReply-To: Bob <bob@sender.example>\nMessage-ID: <p1@sender.example>\nList-Post: <mailto:dev@store.example.org>", "dev@store.example.org", "bob@sender.example"},
		{"reply-to rewritten to the list", "From: alice@sender.example\nReply-To: dev@store.example.org\nMessage-ID: <p1@sender.example>\nList-Post: <mailto:dev@store.example.org?subject=x>", "dev@store.example.org", "alice@sender.example"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := ReplyFor(parse(tc.hdr))
			if strings.Join(r.To, ",") != tc.to || strings.Join(r.Cc, ",") != tc.cc || r.InReplyTo != "p1@sender.example" {
				t.Errorf("%+v", r)
			}
		})
	}
	r := ReplyFor(parse(tests[0].hdr))
	if strings.Join(r.References, ",") != "c0@sender.example" || r.ListID != "Store developers <dev.store.example.org>" || r.Subject != "[PATCH 1/2] x" {
		t.Errorf("%+v", r)
	}
}

// TestPostfix delivers through the local postfix on 127.0.0.1:25 into a
// local mailbox and reads it back. CI sets it up (see docs/venues.md).
func TestPostfix(t *testing.T) {
	if os.Getenv("PERFBOT_TEST_POSTFIX") != "1" {
		t.Skip("PERFBOT_TEST_POSTFIX is not 1: not delivering through a local postfix")
	}
	if _, err := os.Stat("/usr/sbin/postfix"); err != nil {
		t.Skip("/usr/sbin/postfix is absent: install the Debian postfix package")
	}
	rcpt := envOr("PERFBOT_TEST_POSTFIX_RCPT", "perfbot-test@localhost")
	maildir := envOr("PERFBOT_TEST_POSTFIX_MAILDIR", "/home/perfbot-test/Maildir")
	s, err := NewSender(SMTPConfig{Addr: "127.0.0.1:25", From: "perfbot <perfbot@localhost>", TLSConfig: &tls.Config{InsecureSkipVerify: true}, Format: rich})
	if err != nil {
		t.Fatal(err)
	}
	m := report()
	m.Key = "postfix-" + time.Now().Format("20060102T150405.000000000")
	id, err := s.Post(context.Background(), target.MustParse("mail:"+rcpt), m)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		ents, _ := os.ReadDir(filepath.Join(maildir, "new"))
		for _, e := range ents {
			data, err := os.ReadFile(filepath.Join(maildir, "new", e.Name()))
			if err == nil && bytes.Contains(data, []byte(id)) {
				checkReportFrom(t, data, rcpt, m.Key, "localhost")
				if !bytes.Contains(data, []byte("Received: from localhost")) {
					t.Error("no Received: header: the message did not pass through postfix")
				}
				return
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("message %s did not arrive in %s/new within 30s (see /var/log/mail.log or `postqueue -p`)", id, maildir)
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

// recipients is the To of the mail target "mail:"+list, as Post hands
// them to Send (bad recipients are target.Parse's to refuse).
func recipients(list string) []*gomail.Address {
	return addrs(target.MustParse("mail:" + list).To)
}
