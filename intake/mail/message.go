package mail

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/mail"
	"slices"
	"strings"
	"time"
)

// Message is one mail, as read from a maildir or IMAP.
type Message struct {
	// ID is the Message-ID without angle brackets.
	ID         string
	InReplyTo  string
	References []string
	From       string
	// ReplyTo and ListPost are the Reply-To and List-Post headers, which
	// say where an answer goes.
	ReplyTo  string
	ListPost string
	Subject  string
	Date     time.Time
	// Received is when the mail arrived (the maildir file's time, the
	// IMAP internal date): unlike Date, not the sender's word.
	Received time.Time
	// Raw is the whole message as received, and Body its decoded text
	// body (the patch of a patch mail). Both are empty in a mail read by
	// its header alone until Load reads it whole.
	Raw  []byte
	Body string
	// Automatic is set for a mail that says a program sent it: an
	// Auto-Submitted header other than "no" (RFC 3834), or perfbot's own
	// X-Perfbot-Key. Such a mail is never read as a command.
	Automatic bool

	// load reads the whole mail again, for a mail read by its header.
	load func(ctx context.Context) ([]byte, error)
}

// maxHeaderBytes bounds the header of a mail: a longer one is not a
// patch mail perfbot reads.
const maxHeaderBytes = 64 << 10

// maxBodyBytes bounds the decoded body kept of a mail.
const maxBodyBytes = 32 << 20

// maxIDBytes bounds a Message-ID; maxKeptRefs the References kept of a
// mail (its root and its newest entries).
const (
	maxIDBytes  = 250
	maxKeptRefs = 50
)

// DefaultMaxSize is the largest mail read (venues.mail.max_mail_size): a
// larger one is skipped, with a log line naming it, and never read whole.
const DefaultMaxSize = 10 << 20

// ParseMessage reads a mail. name identifies it in errors.
func ParseMessage(raw []byte, name string) (*Message, error) {
	m, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	body, err := io.ReadAll(io.LimitReader(m.Body, maxBodyBytes))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	msg, err := fromHeader(m.Header, name)
	if err != nil {
		return nil, err
	}
	msg.Raw, msg.Body = raw, string(body)
	return msg, nil
}

// ParseHeader reads the header of a mail from r, at most maxHeaderBytes
// of it, and nothing of the body: the mail's Raw and Body are read by
// Load, through load.
func ParseHeader(r io.Reader, name string, load func(ctx context.Context) ([]byte, error)) (*Message, error) {
	br := bufio.NewReaderSize(io.LimitReader(r, maxHeaderBytes), 4096)
	m, err := mail.ReadMessage(br)
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			err = fmt.Errorf("no end of header within %d bytes", maxHeaderBytes)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	msg, err := fromHeader(m.Header, name)
	if err != nil {
		return nil, err
	}
	msg.load = load
	return msg, nil
}

func fromHeader(h mail.Header, name string) (*Message, error) {
	dec := new(mime.WordDecoder)
	subject, err := dec.DecodeHeader(h.Get("Subject"))
	if err != nil {
		subject = h.Get("Subject")
	}
	refs := ids(h.Get("References"))
	if len(refs) > maxKeptRefs {
		refs = append(refs[:1], refs[len(refs)-maxKeptRefs+1:]...)
	}
	msg := &Message{
		ID:         trimID(h.Get("Message-Id")),
		InReplyTo:  trimID(h.Get("In-Reply-To")),
		References: refs,
		From:       h.Get("From"),
		ReplyTo:    h.Get("Reply-To"),
		ListPost:   h.Get("List-Post"),
		Subject:    strings.Join(strings.Fields(subject), " "),
		Automatic:  automatic(h),
	}
	if msg.ID == "" {
		return nil, fmt.Errorf("%s: no Message-ID header", name)
	}
	if !IsMessageID(msg.ID) {
		return nil, fmt.Errorf("%s: malformed Message-ID %q: want printable ASCII, no spaces, at most %d bytes", name, msg.ID, maxIDBytes)
	}
	if !IsMessageID(msg.InReplyTo) {
		msg.InReplyTo = ""
	}
	msg.References = slices.DeleteFunc(msg.References, func(id string) bool { return !IsMessageID(id) })
	msg.Date, _ = h.Date()
	return msg, nil
}

// automatic reports whether a header says a program sent the mail:
// perfbot's own answers carry X-Perfbot-Key and "Auto-Submitted:
// auto-generated", vacation replies and list bots "auto-replied".
func automatic(h mail.Header) bool {
	if h.Get("X-Perfbot-Key") != "" {
		return true
	}
	as := strings.ToLower(strings.TrimSpace(h.Get("Auto-Submitted")))
	as, _, _ = strings.Cut(as, ";")
	return as != "" && strings.TrimSpace(as) != "no"
}

// IsReply reports whether m answers another mail: it names a parent in
// In-Reply-To or References.
func (m *Message) IsReply() bool { return m.InReplyTo != "" || len(m.References) > 0 }

// IsMessageID reports whether id (without angle brackets) is a Message-ID
// perfbot takes in and may write into a header: printable ASCII without
// spaces, quotes or angle brackets, at most maxIDBytes long.
func IsMessageID(id string) bool {
	if id == "" || len(id) > maxIDBytes {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if c <= ' ' || c >= 0x7f || c == '<' || c == '>' || c == '"' || c == '\\' || c == ',' {
			return false
		}
	}
	return true
}

// Load reads a mail read by its header whole (Raw and Body); a mail read
// whole already is left as it is.
func (m *Message) Load(ctx context.Context) error {
	if m.Raw != nil || m.load == nil {
		return nil
	}
	raw, err := m.load(ctx)
	if err != nil {
		return err
	}
	full, err := ParseMessage(raw, m.ID)
	if err != nil {
		return err
	}
	m.Raw, m.Body = full.Raw, full.Body
	return nil
}

// unload drops what Load read, so that a mail kept for its series costs
// its header only.
func (m *Message) unload() {
	if m.load != nil {
		m.Raw, m.Body = nil, ""
	}
}

func trimID(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '<'); i >= 0 {
		if j := strings.IndexByte(s[i:], '>'); j > 0 {
			return s[i+1 : i+j]
		}
	}
	return s
}

func ids(s string) []string {
	var out []string
	for _, f := range strings.Fields(s) {
		if id := trimID(f); id != "" {
			out = append(out, id)
		}
	}
	return out
}

// Address returns the bare address of the From header.
func (m *Message) Address() string {
	a, err := mail.ParseAddress(m.From)
	if err != nil {
		return ""
	}
	return a.Address
}
