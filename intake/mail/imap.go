package mail

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
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
	// MaxSize is the largest mail read (default DefaultMaxSize): a larger
	// one is skipped, with a log line naming its UID, unread.
	MaxSize int64
	Log     *slog.Logger
}

// Source returns the mailbox as a Source: each call returns the patch
// mails and replies with a UID above those of the call before (the first, those
// received since the given day), each by its header; Load fetches one
// whole. A new UIDVALIDITY starts again from the given day.
func (m IMAP) Source() Source {
	r := &imapReader{IMAP: m}
	return r.read
}

// Fetch returns the patch mails and replies received since the given
// day, each by its header (Load fetches one whole); other mails are left
// on the server unread.
func (m IMAP) Fetch(ctx context.Context, since time.Time) ([]*Message, error) {
	r := &imapReader{IMAP: m}
	return r.read(ctx, since)
}

// imapReader remembers the mailbox's UIDVALIDITY and the highest UID
// read.
type imapReader struct {
	IMAP
	validity uint32
	last     imap.UID
}

func (m IMAP) mailbox() string {
	if m.Mailbox == "" {
		return "INBOX"
	}
	return m.Mailbox
}

func (m IMAP) limit() int64 {
	if m.MaxSize <= 0 {
		return DefaultMaxSize
	}
	return m.MaxSize
}

// open logs in and selects the mailbox read-only; the caller closes the
// client, and ends it when ctx ends.
func (m IMAP) open(ctx context.Context) (*imapclient.Client, *imap.SelectData, func(), error) {
	opts := &imapclient.Options{TLSConfig: m.TLSConfig}
	var c *imapclient.Client
	var err error
	if m.Insecure {
		c, err = imapclient.DialInsecure(m.Addr, opts)
	} else {
		c, err = imapclient.DialTLS(m.Addr, opts)
	}
	if err != nil {
		return nil, nil, nil, fmt.Errorf("imap %s: %w", m.Addr, err)
	}
	// The client's commands do not take a context: closing the connection
	// ends whatever is waiting.
	stop := context.AfterFunc(ctx, func() { c.Close() })
	done := func() { stop(); c.Close() }
	if err := c.Login(m.User, m.Password).Wait(); err != nil {
		done()
		return nil, nil, nil, fmt.Errorf("imap %s: login as %s: %w", m.Addr, m.User, err)
	}
	sel, err := c.Select(m.mailbox(), &imap.SelectOptions{ReadOnly: true}).Wait()
	if err != nil {
		done()
		return nil, nil, nil, fmt.Errorf("imap %s: select %s: %w", m.Addr, m.mailbox(), err)
	}
	return c, sel, done, nil
}

func (r *imapReader) read(ctx context.Context, since time.Time) ([]*Message, error) {
	log := r.Log
	if log == nil {
		log = slog.Default()
	}
	c, sel, done, err := r.open(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	criteria := &imap.SearchCriteria{Since: since}
	if sel.UIDValidity == r.validity && r.last > 0 {
		var set imap.UIDSet
		set.AddRange(r.last+1, 0) // last+1:*
		criteria.UID = []imap.UIDSet{set}
	}
	found, err := c.UIDSearch(criteria, nil).Wait()
	if err != nil {
		return nil, fmt.Errorf("imap %s: search: %w", r.Addr, err)
	}
	var uids []imap.UID
	for _, uid := range found.AllUIDs() {
		// "last+1:*" names the newest mail even when its UID is last.
		if uid > r.last || sel.UIDValidity != r.validity {
			uids = append(uids, uid)
		}
	}
	if len(uids) == 0 {
		r.validity = sel.UIDValidity
		return nil, c.Logout().Wait()
	}
	// Subjects and sizes first: only the headers of patch mails and
	// replies no larger than the limit are fetched, and the bodies of
	// patches once their series is complete (of replies, only those that
	// may hold a command), so that a busy list costs little per poll.
	envs, err := c.Fetch(imap.UIDSetNum(uids...), &imap.FetchOptions{UID: true, Envelope: true, RFC822Size: true, InternalDate: true}).Collect()
	if err != nil {
		return nil, fmt.Errorf("imap %s: fetch envelopes: %w", r.Addr, err)
	}
	var patches []imap.UID
	received := map[imap.UID]time.Time{}
	for _, e := range envs {
		if e.Envelope == nil {
			continue
		}
		if _, ok := ParseSubject(e.Envelope.Subject); !ok && len(e.Envelope.InReplyTo) == 0 {
			continue
		}
		if e.RFC822Size > r.limit() {
			log.Warn("mail skipped: larger than venues.mail.max_mail_size", "mailbox", r.Addr+"/"+r.mailbox(),
				"uid", e.UID, "size", e.RFC822Size, "max", r.limit())
			continue
		}
		patches = append(patches, e.UID)
		received[e.UID] = e.InternalDate
	}
	var msgs []*Message
	var errs []error
	if len(patches) > 0 {
		section := &imap.FetchItemBodySection{Specifier: imap.PartSpecifierHeader, Peek: true,
			Partial: &imap.SectionPartial{Offset: 0, Size: maxHeaderBytes}}
		cmd := c.Fetch(imap.UIDSetNum(patches...), &imap.FetchOptions{UID: true, BodySection: []*imap.FetchItemBodySection{section}})
		for {
			data := cmd.Next()
			if data == nil {
				break
			}
			b, err := data.Collect()
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if len(b.BodySection) == 0 {
				continue
			}
			name := fmt.Sprintf("imap %s/%s UID %d", r.Addr, r.mailbox(), b.UID)
			uid, validity := b.UID, sel.UIDValidity
			msg, err := ParseHeader(bytes.NewReader(b.BodySection[0].Bytes), name, func(ctx context.Context) ([]byte, error) {
				return r.body(ctx, uid, validity)
			})
			if err != nil {
				errs = append(errs, err)
				continue
			}
			msg.Received = received[b.UID]
			if msg.Date.IsZero() {
				msg.Date = msg.Received
			}
			msgs = append(msgs, msg)
		}
		if err := cmd.Close(); err != nil {
			return nil, fmt.Errorf("imap %s: fetch headers: %w", r.Addr, err)
		}
	}
	r.validity = sel.UIDValidity
	for _, uid := range uids {
		r.last = max(r.last, uid)
	}
	c.Logout().Wait()
	return msgs, errors.Join(errs...)
}

// body fetches one mail whole, by its UID, with PEEK.
func (m IMAP) body(ctx context.Context, uid imap.UID, validity uint32) ([]byte, error) {
	c, sel, done, err := m.open(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	if sel.UIDValidity != validity {
		return nil, fmt.Errorf("imap %s: mailbox %s changed its UIDVALIDITY: UID %d is gone", m.Addr, m.mailbox(), uid)
	}
	section := &imap.FetchItemBodySection{Peek: true}
	bufs, err := c.Fetch(imap.UIDSetNum(uid), &imap.FetchOptions{UID: true, RFC822Size: true,
		BodySection: []*imap.FetchItemBodySection{section}}).Collect()
	if err != nil {
		return nil, fmt.Errorf("imap %s: fetch UID %d: %w", m.Addr, uid, err)
	}
	if len(bufs) == 0 {
		return nil, fmt.Errorf("imap %s: UID %d is gone from %s", m.Addr, uid, m.mailbox())
	}
	raw := bufs[0].FindBodySection(section)
	if int64(len(raw)) > m.limit() {
		return nil, fmt.Errorf("imap %s: UID %d is larger than venues.mail.max_mail_size (%d bytes)", m.Addr, uid, m.limit())
	}
	c.Logout().Wait()
	return raw, nil
}
