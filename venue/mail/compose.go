// Package mail composes perfbot's answers as mail and sends them over SMTP,
// threaded under the patch or cover letter it answers, with a stable
// Message-ID per job so that a resent answer is recognisable. By default an
// answer is plain text only, as mailing lists expect: tables within 72
// columns, prose wrapped at 78, no HTML part and no attachments; a Format
// adds an HTML alternative with inline charts, or the charts and raw
// results as attachments.
package mail

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"strings"
	"time"

	gomail "github.com/emersion/go-message/mail"

	"github.com/emersion/go-message"

	"github.com/perfbot/perfbot/answer"
)

// Outgoing is one answer to compose.
type Outgoing struct {
	From *gomail.Address
	To   []*gomail.Address
	Cc   []*gomail.Address
	Date time.Time
	Msg  answer.Answer
	// Format says what the mail holds besides its plain text; the zero
	// Format is plain text alone.
	Format Format
}

// Format says what an answer mail holds besides its plain text part.
type Format struct {
	// HTML adds the HTML rendering as an alternative, with the charts
	// inline (multipart/related).
	HTML bool
	// Attach attaches the charts (unless HTML shows them inline) and
	// the raw results.
	Attach bool
}

// omittedNote ends a plain answer whose charts or raw results were left
// out, so the reader knows they exist.
const omittedNote = "Charts and raw results (JSON) are not sent to this address as attachments;\n" +
	"the tables above hold the measurements.\n"

// MessageID is the stable Message-ID (without angle brackets) of the
// answer with key, sent from an address in domain: the same job always
// gets the same ID, so a resent answer is recognisable as a duplicate.
func MessageID(key, domain string) string {
	var b strings.Builder
	for _, r := range key {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', strings.ContainsRune("-_.+=", r):
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	id := strings.Trim(b.String(), ".")
	if id != key || len(id) > 64 {
		// Keep it readable but unique: a digest of the exact key.
		sum := sha256.Sum256([]byte(key))
		id = fmt.Sprintf("%.40s.%s", id, hex.EncodeToString(sum[:6]))
	}
	return "perfbot." + id + "@" + domain
}

// domainOf returns the domain of an address ("example.org").
func domainOf(a *gomail.Address) string {
	_, d, _ := strings.Cut(a.Address, "@")
	if d == "" {
		return "localhost"
	}
	return strings.ToLower(d)
}

// Compose writes o as a MIME message and returns its Message-ID (without
// angle brackets). With the zero Format it is one text/plain part, laid
// out by FitText, ending with a sentence saying that charts and raw
// results were left out when the answer had any. With Format.HTML and
// Format.Attach the structure is
//
//	multipart/mixed
//	├── multipart/related          (only when there are inline images)
//	│   ├── multipart/alternative
//	│   │   ├── text/plain; charset=utf-8
//	│   │   └── text/html; charset=utf-8
//	│   └── image/png               Content-ID: <NAME>, inline
//	└── application/json ...        attachment; filename=NAME
//
// The HTML shows an inline image with src="cid:NAME", NAME being the
// attachment's name.
func Compose(w io.Writer, o Outgoing) (string, error) {
	if o.From == nil {
		return "", errors.New("mail: no From address (set PERFBOT_MAIL_FROM or venues.mail.from)")
	}
	if len(o.To) == 0 {
		return "", errors.New("mail: no recipient")
	}
	if o.Msg.Key == "" {
		return "", errors.New("mail: message has no key; a retry could not be recognised")
	}
	date := o.Date
	if date.IsZero() {
		date = time.Now()
	}
	msg := o.Msg
	htm := ""
	if o.Format.HTML {
		htm = msg.Full(answer.HTML)
	}
	var inline, attached []answer.Attachment
	omitted := false
	for _, a := range msg.Attachments {
		switch {
		case a.Inline && o.Format.HTML:
			inline = append(inline, a)
		case o.Format.Attach:
			a.Inline = false
			attached = append(attached, a)
		default:
			omitted = true
		}
	}
	text := FitText(textOf(msg))
	if omitted {
		if !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		text += "\n" + omittedNote
	}
	single := htm == "" && len(inline) == 0 && len(attached) == 0
	id := MessageID(o.Msg.Key, domainOf(o.From))
	// go-message puts each new field above the earlier ones, so the
	// fields are set bottom up: the header reads From, To, Subject, ...
	var h gomail.Header
	if single {
		// Plain text alone: one text/plain part, no multipart wrapper.
		h.Set("Content-Transfer-Encoding", "quoted-printable")
		h.SetContentType("text/plain", map[string]string{"charset": "utf-8"})
	} else {
		h.SetContentType("multipart/mixed", nil)
	}
	h.Set("MIME-Version", "1.0")
	h.SetText("X-Perfbot-Key", strings.Join(strings.Fields(o.Msg.Key), " "))
	h.Set("Auto-Submitted", "auto-generated") // RFC 3834: no auto-replies back
	if parent := trimID(o.Msg.InReplyTo); parent != "" {
		var refs []string
		for _, r := range o.Msg.References {
			if r = trimID(r); r != "" && r != parent {
				refs = append(refs, r)
			}
		}
		h.SetMsgIDList("References", append(refs, parent))
		h.SetMsgIDList("In-Reply-To", []string{parent})
	}
	h.SetMessageID(id)
	h.SetDate(date)
	h.SetSubject(subject(o.Msg))
	if len(o.Cc) > 0 {
		h.SetAddressList("Cc", o.Cc)
	}
	h.SetAddressList("To", o.To)
	h.SetAddressList("From", []*gomail.Address{o.From})

	mw, err := message.CreateWriter(w, h.Header)
	if err != nil {
		return "", fmt.Errorf("mail: %w", err)
	}
	if single {
		if _, err := io.WriteString(mw, text); err != nil {
			return "", fmt.Errorf("mail: %w", err)
		}
		if err := mw.Close(); err != nil {
			return "", fmt.Errorf("mail: %w", err)
		}
		return id, nil
	}
	body := mw
	if len(inline) > 0 {
		var rh message.Header
		rh.SetContentType("multipart/related", map[string]string{"type": "multipart/alternative"})
		if body, err = mw.CreatePart(rh); err != nil {
			return "", fmt.Errorf("mail: %w", err)
		}
	}
	if err := writeAlternative(body, text, htm); err != nil {
		return "", err
	}
	for _, a := range inline {
		if err := writeAttachment(body, a, "inline"); err != nil {
			return "", err
		}
	}
	if len(inline) > 0 {
		if err := body.Close(); err != nil {
			return "", fmt.Errorf("mail: %w", err)
		}
	}
	for _, a := range attached {
		if err := writeAttachment(mw, a, "attachment"); err != nil {
			return "", err
		}
	}
	if err := mw.Close(); err != nil {
		return "", fmt.Errorf("mail: %w", err)
	}
	return id, nil
}

// subject is the message's subject, "Re: " prefixed when it answers a
// thread.
func subject(m answer.Answer) string {
	s := strings.Join(strings.Fields(m.Subject), " ") // no header folding tricks
	if s == "" {
		s = "perfbot report"
	}
	if m.InReplyTo != "" && !strings.HasPrefix(strings.ToLower(s), "re:") {
		s = "Re: " + s
	}
	return s
}

func trimID(id string) string {
	return strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(id), "<"), ">"))
}

// writeAlternative writes the text and HTML renderings as
// multipart/alternative, or the text alone when there is no HTML.
func writeAlternative(parent *message.Writer, text, htm string) error {
	if htm == "" {
		return writeTextPart(parent, "text/plain", text)
	}
	var ah message.Header
	ah.SetContentType("multipart/alternative", nil)
	alt, err := parent.CreatePart(ah)
	if err != nil {
		return fmt.Errorf("mail: %w", err)
	}
	if err := writeTextPart(alt, "text/plain", text); err != nil {
		return err
	}
	if err := writeTextPart(alt, "text/html", htm); err != nil {
		return err
	}
	if err := alt.Close(); err != nil {
		return fmt.Errorf("mail: %w", err)
	}
	return nil
}

// textOf is the plain text of m: its text rendering, else its GitHub
// Markdown.
func textOf(m answer.Answer) string {
	if t := m.Full(answer.Text); t != "" {
		return t
	}
	return m.Full(answer.MarkdownGFM)
}

func writeTextPart(parent *message.Writer, typ, body string) error {
	var ph message.Header
	ph.SetContentType(typ, map[string]string{"charset": "utf-8"})
	ph.Set("Content-Transfer-Encoding", "quoted-printable")
	pw, err := parent.CreatePart(ph)
	if err != nil {
		return fmt.Errorf("mail: %w", err)
	}
	if _, err := io.WriteString(pw, body); err != nil {
		return fmt.Errorf("mail: %w", err)
	}
	if err := pw.Close(); err != nil {
		return fmt.Errorf("mail: %w", err)
	}
	return nil
}

func writeAttachment(parent *message.Writer, a answer.Attachment, disposition string) error {
	if a.Name == "" {
		return errors.New("mail: attachment without a name")
	}
	// A content type may carry parameters ("text/plain; charset=utf-8"):
	// they are parsed and written back with the name, through
	// mime.FormatMediaType, so the header is never empty or malformed.
	ct, params, err := mime.ParseMediaType(a.ContentType)
	if err != nil || !strings.Contains(ct, "/") {
		ct, params = "application/octet-stream", nil
	}
	if params == nil {
		params = map[string]string{}
	}
	params["name"] = a.Name
	var ph message.Header
	ph.SetContentType(ct, params)
	ph.SetContentDisposition(disposition, map[string]string{"filename": a.Name})
	ph.Set("Content-Transfer-Encoding", "base64")
	if disposition == "inline" {
		ph.Set("Content-ID", "<"+a.Name+">")
	}
	pw, err := parent.CreatePart(ph)
	if err != nil {
		return fmt.Errorf("mail: attachment %s: %w", a.Name, err)
	}
	if _, err := pw.Write(a.Data); err != nil {
		return fmt.Errorf("mail: attachment %s: %w", a.Name, err)
	}
	if err := pw.Close(); err != nil {
		return fmt.Errorf("mail: attachment %s: %w", a.Name, err)
	}
	return nil
}
