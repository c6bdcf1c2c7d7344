package mail

import (
	"bytes"
	"fmt"
	"io"
	"mime"
	"net/mail"
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
	// Raw is the whole message as received.
	Raw []byte
	// Body is the decoded text body (the patch of a patch mail).
	Body string
}

// ParseMessage reads a mail. name identifies it in errors.
func ParseMessage(raw []byte, name string) (*Message, error) {
	m, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	body, err := io.ReadAll(io.LimitReader(m.Body, 32<<20))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	dec := new(mime.WordDecoder)
	subject, err := dec.DecodeHeader(m.Header.Get("Subject"))
	if err != nil {
		subject = m.Header.Get("Subject")
	}
	msg := &Message{
		ID:         trimID(m.Header.Get("Message-Id")),
		InReplyTo:  trimID(m.Header.Get("In-Reply-To")),
		References: ids(m.Header.Get("References")),
		From:       m.Header.Get("From"),
		ReplyTo:    m.Header.Get("Reply-To"),
		ListPost:   m.Header.Get("List-Post"),
		Subject:    strings.Join(strings.Fields(subject), " "),
		Raw:        raw,
		Body:       string(body),
	}
	if msg.ID == "" {
		return nil, fmt.Errorf("%s: no Message-ID header", name)
	}
	msg.Date, _ = m.Header.Date()
	return msg, nil
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
