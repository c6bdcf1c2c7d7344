package mail

import (
	"context"
	"crypto/tls"
	"fmt"
	"strings"
	"time"

	"github.com/emersion/go-imap/v2/imapclient"

	"github.com/perfbot/perfbot/venue/retry"
)

// checkTimeout bounds one check when ctx sets no deadline.
const checkTimeout = 30 * time.Second

// Check shows that the SMTP server takes perfbot as a delivery would,
// without sending anything: connect, STARTTLS or implicit TLS as
// configured (the certificate verified), EHLO, AUTH PLAIN when a user is
// set, QUIT. No retry. It says how the session went; errors never hold
// the password.
func (s *Sender) Check(ctx context.Context) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	c, err := s.open(ctx)
	if err != nil {
		return "", retry.Redact(fmt.Errorf("mail: %s: %w", s.cfg.Addr, err), s.cfg.Password, plainBlob(s.cfg.User, s.cfg.Password))
	}
	defer c.Close()
	var how []string
	if st, ok := c.TLSConnectionState(); ok {
		how = append(how, tls.VersionName(st.Version))
	} else {
		how = append(how, "no TLS")
	}
	if s.cfg.User != "" {
		how = append(how, "AUTH PLAIN as "+s.cfg.User)
	} else {
		how = append(how, "no AUTH (no user configured)")
	}
	if err := c.Quit(); err != nil {
		return "", fmt.Errorf("mail: %s: QUIT: %w", s.cfg.Addr, err)
	}
	return s.cfg.Addr + ": " + strings.Join(how, ", "), nil
}

// CheckIMAP signs in to an IMAP server over TLS (Addr "host:port", 993
// usually) and logs out, as the mail intake does before reading. No retry;
// errors never hold the password.
func CheckIMAP(ctx context.Context, addr, user, password string, tc *tls.Config) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	conn, err := (&tls.Dialer{Config: tc}).DialContext(ctx, "tcp", addr)
	if err != nil {
		return "", fmt.Errorf("imap %s: %w", addr, err)
	}
	c := imapclient.New(conn, nil)
	defer c.Close()
	// The client's commands take no context: closing the connection ends
	// whatever is waiting.
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	if err := c.Login(user, password).Wait(); err != nil {
		return "", retry.Redact(fmt.Errorf("imap %s: login as %s: %w", addr, user, err), password)
	}
	if err := c.Logout().Wait(); err != nil {
		return "", fmt.Errorf("imap %s: logout: %w", addr, err)
	}
	return addr + ": signed in as " + user, nil
}
