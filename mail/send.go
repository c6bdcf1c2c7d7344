package mail

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	gomail "github.com/emersion/go-message/mail"
	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"github.com/perfbot/perfbot/review"
	"github.com/perfbot/perfbot/review/retry"
)

// SMTPConfig says how to send.
type SMTPConfig struct {
	// Addr is the submission server, host:port ("smtp.example.org:587").
	Addr string
	// From is the sender, as a header address ("perfbot
	// <perfbot@example.org>"); its domain names the Message-IDs.
	From string
	// User and Password sign in with AUTH PLAIN when set. perfbot never
	// sends them over an unencrypted connection to a host other than
	// loopback.
	User, Password string
	// ImplicitTLS speaks TLS from the first byte (port 465) instead of
	// upgrading with STARTTLS, which is used whenever the server offers it.
	ImplicitTLS bool
	// TLSConfig verifies the server; nil means the system roots and the
	// host of Addr.
	TLSConfig *tls.Config
	// LocalName is the EHLO name (default "localhost").
	LocalName string
	// Timeout bounds one delivery attempt (default 2m).
	Timeout time.Duration
	// Retry bounds retries of transient failures (SMTP 4xx replies,
	// network errors).
	Retry retry.Policy
}

// Sender sends answers by SMTP. It is safe for concurrent use.
type Sender struct {
	cfg  SMTPConfig
	from *gomail.Address
	host string
}

var _ review.Poster = (*Sender)(nil)

// NewSender checks cfg and returns a Sender. It makes no connection.
func NewSender(cfg SMTPConfig) (*Sender, error) {
	host, _, err := net.SplitHostPort(cfg.Addr)
	if err != nil || host == "" {
		return nil, fmt.Errorf("mail: SMTP server %q: want host:port (PERFBOT_SMTP or venues.mail.smtp)", cfg.Addr)
	}
	if cfg.From == "" {
		return nil, errors.New("mail: no sender address (set PERFBOT_MAIL_FROM or venues.mail.from)")
	}
	from, err := gomail.ParseAddress(cfg.From)
	if err != nil {
		return nil, fmt.Errorf("mail: sender address %q: %w", cfg.From, err)
	}
	if (cfg.User == "") != (cfg.Password == "") {
		return nil, errors.New("mail: set both SMTP user and password (SMTP_USER, SMTP_PASSWORD), or neither")
	}
	return &Sender{cfg: cfg, from: from, host: host}, nil
}

// Post composes msg and sends it to where ("a@example.org,b@example.org").
// It returns the Message-ID, in angle brackets.
func (s *Sender) Post(ctx context.Context, where string, msg review.Message) (string, error) {
	to, err := ParseRecipients(where)
	if err != nil {
		return "", err
	}
	return s.Send(ctx, to, nil, msg)
}

// ParseRecipients reads "a@b,c@d" (display names allowed).
func ParseRecipients(where string) ([]*gomail.Address, error) {
	as, err := gomail.ParseAddressList(where)
	if err != nil || len(as) == 0 {
		return nil, fmt.Errorf("mail target %q: want ADDRESS[,ADDRESS], such as dev@lists.example.org", where)
	}
	return as, nil
}

// Send composes msg to to and cc and delivers it, retrying transient
// failures. It returns the Message-ID, in angle brackets.
func (s *Sender) Send(ctx context.Context, to, cc []*gomail.Address, msg review.Message) (string, error) {
	var buf bytes.Buffer
	id, err := Compose(&buf, Outgoing{From: s.from, To: to, Cc: cc, Date: time.Now(), Msg: msg})
	if err != nil {
		return "", err
	}
	var rcpt []string
	for _, a := range append(append([]*gomail.Address(nil), to...), cc...) {
		rcpt = append(rcpt, a.Address)
	}
	err = s.cfg.Retry.Do(ctx, "mail: send via "+s.cfg.Addr, func(ctx context.Context) error {
		return s.deliver(ctx, rcpt, buf.Bytes())
	})
	if err != nil {
		return "", retry.Redact(err, s.cfg.Password, plainBlob(s.cfg.User, s.cfg.Password))
	}
	return "<" + id + ">", nil
}

// plainBlob is the AUTH PLAIN credential as it crosses the wire.
func plainBlob(user, pass string) string {
	if pass == "" {
		return ""
	}
	return b64("\x00" + user + "\x00" + pass)
}

// deliver makes one SMTP transaction and classifies its failure.
func (s *Sender) deliver(ctx context.Context, rcpt []string, data []byte) error {
	timeout := s.cfg.Timeout
	if timeout <= 0 {
		timeout = 2 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c, err := s.connect(ctx, false)
	if err != nil {
		return err
	}
	defer c.Close()
	if ok, _ := c.Extension("STARTTLS"); ok && !s.cfg.ImplicitTLS {
		// go-smtp upgrades only on a fresh client: say goodbye and
		// reconnect with STARTTLS.
		_ = c.Quit()
		if c, err = s.connect(ctx, true); err != nil {
			return err
		}
		defer c.Close()
	}
	if s.cfg.User != "" {
		_, encrypted := c.TLSConnectionState()
		if !encrypted && !isLoopback(s.host) {
			return fmt.Errorf("%s offers no STARTTLS: refusing to send the SMTP password unencrypted", s.cfg.Addr)
		}
		if !c.SupportsAuth(sasl.Plain) {
			return fmt.Errorf("%s does not offer AUTH PLAIN", s.cfg.Addr)
		}
		if err := c.Auth(sasl.NewPlainClient("", s.cfg.User, s.cfg.Password)); err != nil {
			return classify(fmt.Errorf("AUTH PLAIN: %w", err))
		}
	}
	if err := c.SendMail(s.from.Address, rcpt, bytes.NewReader(data)); err != nil {
		return classify(err)
	}
	// The message is accepted; a lost QUIT reply changes nothing.
	_ = c.Quit()
	return nil
}

// connect dials the server and greets it, upgrading with STARTTLS when
// startTLS is set, speaking TLS from the start when ImplicitTLS is.
func (s *Sender) connect(ctx context.Context, startTLS bool) (*smtp.Client, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", s.cfg.Addr)
	if err != nil {
		return nil, classify(err)
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	// Closing the connection when ctx ends unblocks any read or write.
	context.AfterFunc(ctx, func() { conn.Close() })
	if s.cfg.ImplicitTLS {
		tc := tls.Client(conn, s.tlsConfig())
		if err := tc.HandshakeContext(ctx); err != nil {
			conn.Close()
			return nil, fmt.Errorf("TLS with %s: %w", s.cfg.Addr, err)
		}
		conn = tc
	}
	var c *smtp.Client
	if startTLS {
		if c, err = smtp.NewClientStartTLS(conn, s.tlsConfig()); err != nil {
			conn.Close()
			return nil, classify(fmt.Errorf("STARTTLS with %s: %w", s.cfg.Addr, err))
		}
	} else {
		c = smtp.NewClient(conn)
	}
	name := s.cfg.LocalName
	if name == "" {
		name = "localhost"
	}
	if err := c.Hello(name); err != nil {
		c.Close()
		return nil, classify(err)
	}
	return c, nil
}

func (s *Sender) tlsConfig() *tls.Config {
	if s.cfg.TLSConfig != nil {
		c := s.cfg.TLSConfig.Clone()
		if c.ServerName == "" {
			c.ServerName = s.host
		}
		return c
	}
	return &tls.Config{ServerName: s.host, MinVersion: tls.VersionTLS12}
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// classify marks SMTP 4xx replies and network failures transient; 5xx
// replies (unknown user, message refused) and the rest are permanent.
func classify(err error) error {
	var se *smtp.SMTPError
	if errors.As(err, &se) {
		if se.Code >= 400 && se.Code < 500 {
			return retry.Transient(err)
		}
		return err
	}
	if retry.NetworkTransient(err) {
		return retry.Transient(err)
	}
	return err
}
