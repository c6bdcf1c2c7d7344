package mail

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
)

// IMAP reads a mailbox of an IMAP server without changing it (the mailbox
// is selected read-only and bodies are fetched with PEEK).
type IMAP struct {
	// Addr is "host:port" (993 for TLS).
	Addr           string
	User, Password string
	// Mailbox defaults to INBOX.
	Mailbox string
	// Insecure uses a plain connection, for a server on loopback only.
	Insecure  bool
	TLSConfig *tls.Config
}

// Source returns the mailbox as a Source.
func (m IMAP) Source() Source { return m.Fetch }

// Fetch returns the patch mails received since the given day (replies and
// other mails are left on the server unread).
func (m IMAP) Fetch(ctx context.Context, since time.Time) ([]*Message, error) {
	opts := &imapclient.Options{TLSConfig: m.TLSConfig}
	var c *imapclient.Client
	var err error
	if m.Insecure {
		c, err = imapclient.DialInsecure(m.Addr, opts)
	} else {
		c, err = imapclient.DialTLS(m.Addr, opts)
	}
	if err != nil {
		return nil, fmt.Errorf("imap %s: %w", m.Addr, err)
	}
	defer c.Close()
	// The client's commands do not take a context: closing the connection
	// ends whatever is waiting.
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	if err := c.Login(m.User, m.Password).Wait(); err != nil {
		return nil, fmt.Errorf("imap %s: login as %s: %w", m.Addr, m.User, err)
	}
	mailbox := m.Mailbox
	if mailbox == "" {
		mailbox = "INBOX"
	}
	if _, err := c.Select(mailbox, &imap.SelectOptions{ReadOnly: true}).Wait(); err != nil {
		return nil, fmt.Errorf("imap %s: select %s: %w", m.Addr, mailbox, err)
	}
	found, err := c.UIDSearch(&imap.SearchCriteria{Since: since}, nil).Wait()
	if err != nil {
		return nil, fmt.Errorf("imap %s: search: %w", m.Addr, err)
	}
	uids := found.AllUIDs()
	if len(uids) == 0 {
		return nil, c.Logout().Wait()
	}
	// Subjects first: only patch mails are fetched whole, so that a busy
	// list costs little per poll.
	envs, err := c.Fetch(imap.UIDSetNum(uids...), &imap.FetchOptions{UID: true, Envelope: true}).Collect()
	if err != nil {
		return nil, fmt.Errorf("imap %s: fetch envelopes: %w", m.Addr, err)
	}
	uids = uids[:0]
	for _, e := range envs {
		if e.Envelope == nil {
			continue
		}
		if _, ok := ParseSubject(e.Envelope.Subject); ok {
			uids = append(uids, e.UID)
		}
	}
	if len(uids) == 0 {
		return nil, c.Logout().Wait()
	}
	section := &imap.FetchItemBodySection{Peek: true}
	bufs, err := c.Fetch(imap.UIDSetNum(uids...), &imap.FetchOptions{UID: true, InternalDate: true,
		BodySection: []*imap.FetchItemBodySection{section}}).Collect()
	if err != nil {
		return nil, fmt.Errorf("imap %s: fetch: %w", m.Addr, err)
	}
	var msgs []*Message
	var errs []error
	for _, b := range bufs {
		raw := b.FindBodySection(section)
		if raw == nil {
			continue
		}
		msg, err := ParseMessage(raw, fmt.Sprintf("imap %s/%s UID %d", m.Addr, mailbox, b.UID))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if msg.Date.IsZero() {
			msg.Date = b.InternalDate
		}
		msgs = append(msgs, msg)
	}
	c.Logout().Wait()
	return msgs, errors.Join(errs...)
}
