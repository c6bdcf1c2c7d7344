package mail

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"mime"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/emersion/go-message"
	gomail "github.com/emersion/go-message/mail"
	"github.com/emersion/go-smtp"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/target"
	"github.com/perfbot/perfbot/venue/retry"
)

// TestSendPlainToList: by default an answer to a list is one text/plain
// part, To the list and Cc the author (from the target's ?cc=), without
// HTML or attachments, saying that charts and raw results were left out;
// a list configured for attachments gets them, each with a valid
// Content-Type.
func TestSendPlainToList(t *testing.T) {
	ts := startSMTP(t, smtpOptions{})
	s, err := NewSender(SMTPConfig{Addr: ts.addr, From: "perfbot <perfbot@example.org>", Retry: noRetry(),
		Lists: map[string]Format{"perf@lists.example.org": {Attach: true}}})
	if err != nil {
		t.Fatal(err)
	}
	m := report()
	m.Set(answer.Text, answer.Rendering{Full: "perfbot: 1 better, 0 worse\n\n" + strings.Repeat("This sentence is long prose that a list reader expects to be wrapped. ", 4) + "\n"})
	m.Attachments = append(m.Attachments, attachment("perfbot-report.txt", "text/plain; charset=utf-8", m.Full(answer.Text)))
	dest := target.MailTo([]string{"dev@lists.example.org"}, []string{"author@sender.example"})
	if dest.String() != "mail:dev@lists.example.org?cc=author%40sender.example" {
		t.Errorf("target %q", dest)
	}
	if _, err := s.Post(context.Background(), dest, m); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Post(context.Background(), target.MustParse("mail:perf@lists.example.org"), m); err != nil {
		t.Fatal(err)
	}
	got := ts.delivered(t)
	if len(got) != 2 {
		t.Fatalf("%d delivered", len(got))
	}
	var plain, attached []byte
	for _, g := range got {
		if bytes.Contains(g, []byte("To: <perf@")) {
			attached = g
		} else {
			plain = g
		}
	}
	e, err := message.Read(bytes.NewReader(plain))
	if err != nil {
		t.Fatal(err)
	}
	h := gomail.Header{Header: e.Header}
	to, _ := h.AddressList("To")
	cc, _ := h.AddressList("Cc")
	if len(to) != 1 || to[0].Address != "dev@lists.example.org" || len(cc) != 1 || cc[0].Address != "author@sender.example" {
		t.Errorf("To %v Cc %v: want the list, the author in Cc", to, cc)
	}
	if typ, params, _ := e.Header.ContentType(); typ != "text/plain" || params["charset"] != "utf-8" {
		t.Errorf("Content-Type %q %v, want one text/plain part", typ, params)
	}
	body, _ := io.ReadAll(e.Body)
	if !bytes.Contains(body, []byte("not sent to this address as attachments")) || bytes.Contains(body, []byte("<table>")) {
		t.Errorf("body:\n%s", body)
	}
	for _, l := range strings.Split(string(body), "\n") {
		if utf8.RuneCountInString(strings.TrimRight(l, "\r")) > TextWidth {
			t.Errorf("line of %d columns: %q", utf8.RuneCountInString(l), l)
		}
	}
	if len(plain) > 4096 {
		t.Errorf("plain answer is %d bytes", len(plain))
	}

	// The list that takes attachments: every part's Content-Type parses.
	e, err = message.Read(bytes.NewReader(attached))
	if err != nil {
		t.Fatal(err)
	}
	var parts []part
	walk(t, e, "", &parts)
	var paths []string
	for _, p := range parts {
		paths = append(paths, p.path)
	}
	want := "/multipart/mixed /multipart/mixed/text/plain /multipart/mixed/image/png /multipart/mixed/application/json /multipart/mixed/text/plain"
	if strings.Join(paths, " ") != want {
		t.Errorf("structure %s, want %s", strings.Join(paths, " "), want)
	}
	for _, line := range strings.Split(string(attached), "\r\n") {
		if v, ok := strings.CutPrefix(line, "Content-Type:"); ok {
			if _, _, err := mime.ParseMediaType(strings.TrimSpace(v)); err != nil || strings.TrimSpace(v) == "" {
				t.Errorf("invalid %q: %v", line, err)
			}
		}
	}
	if !bytes.Contains(attached, []byte(`Content-Type: text/plain; charset=utf-8; name=perfbot-report.txt`)) {
		t.Errorf("the text attachment's type lost its charset or name:\n%s", attached)
	}
}

func attachment(name, typ, data string) answer.Attachment {
	return answer.Attachment{Name: name, ContentType: typ, Data: []byte(data)}
}

// TestSendSkipsRefusedRecipient: a recipient the relay refuses for good
// (an author's address it will not relay to) does not keep the answer from
// the list; when every recipient is refused, the send fails for good.
func TestSendSkipsRefusedRecipient(t *testing.T) {
	ts := startSMTP(t, smtpOptions{})
	refuse := &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 7, 1}, Message: "Recipient address rejected"}
	ts.failRcpt = []*smtp.SMTPError{refuse}
	var logs bytes.Buffer
	s, err := NewSender(SMTPConfig{Addr: ts.addr, From: "perfbot@example.org", Retry: noRetry(), Log: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Post(context.Background(), target.MustParse("mail:dev@lists.example.org?cc=author%40far.example"), report()); err != nil {
		t.Fatal(err)
	}
	// The first RCPT (the list) was refused here; the author got it.
	if len(ts.rcpts) != 1 || strings.Join(ts.rcpts[0], ",") != "author@far.example" || !strings.Contains(logs.String(), "recipient dev@lists.example.org") {
		t.Errorf("delivered to %v; log %s", ts.rcpts, logs.String())
	}
	ts.failRcpt = []*smtp.SMTPError{refuse, refuse}
	_, err = s.Post(context.Background(), target.MustParse("mail:dev@lists.example.org?cc=author%40far.example"), report())
	if err == nil || !strings.Contains(err.Error(), "Recipient address rejected") || retry.IsTransient(err) || len(ts.rcpts) != 1 {
		t.Errorf("all refused: %v, delivered %v", err, ts.rcpts)
	}
}
