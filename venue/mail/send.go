package mail

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strings"
	"time"

	gomail "github.com/emersion/go-message/mail"
	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/target"
	"github.com/perfbot/perfbot/venue"
	"github.com/perfbot/perfbot/venue/retry"
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
	// upgrading with STARTTLS.
	ImplicitTLS bool
	// StartTLS says when to upgrade a plain connection: StartTLSRequire,
	// StartTLSOpportunistic or StartTLSOff. Empty means require, except
	// for a server on loopback, where it means opportunistic.
	StartTLS StartTLSMode
	// TLSServerName is the name the server's certificate must carry;
	// empty means the host of Addr. A local relay on 127.0.0.1 whose
	// certificate names only "localhost" needs "localhost" here.
	TLSServerName string
	// CAFile is a PEM file of certificates trusted besides the system
	// roots (a local relay's self-signed certificate).
	CAFile string
	// TLSConfig, when set, replaces the system roots and CAFile; its
	// ServerName defaults to TLSServerName, then the host of Addr.
	TLSConfig *tls.Config
	// LocalName is the EHLO name (default "localhost").
	LocalName string
	// Timeout bounds one delivery attempt (default 2m).
	Timeout time.Duration
	// Retry bounds retries of transient failures (SMTP 4xx replies,
	// network errors).
	Retry retry.Policy
	// Format says what an answer holds besides its plain text; the zero
	// Format (the default) is plain text alone, as lists expect.
	Format Format
	// Lists gives the Format of answers to a list, by its address: an
	// answer with the list among its recipients uses it.
	Lists map[string]Format
	// Log receives recipients the server refused while taking the others
	// (default slog.Default()).
	Log *slog.Logger
}

// StartTLSMode says when a plain SMTP connection is upgraded to TLS.
type StartTLSMode string

// STARTTLS modes. With TLS the server's certificate is always verified,
// against TLSServerName (or the host of Addr); a certificate that does not
// verify fails the delivery, in every mode, rather than falling back to
// plain text.
const (
	// StartTLSRequire refuses a server that does not offer STARTTLS.
	StartTLSRequire StartTLSMode = "require"
	// StartTLSOpportunistic upgrades when the server offers STARTTLS and
	// sends in plain text when it does not.
	StartTLSOpportunistic StartTLSMode = "opportunistic"
	// StartTLSOff never upgrades (a relay on loopback without TLS).
	StartTLSOff StartTLSMode = "off"
)

// Sender sends answers by SMTP. It is safe for concurrent use.
type Sender struct {
	cfg      SMTPConfig
	from     *gomail.Address
	host     string
	startTLS StartTLSMode
	tls      *tls.Config
}

var _ venue.Poster = (*Sender)(nil)

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
	mode := cfg.StartTLS
	switch mode {
	case "":
		mode = StartTLSRequire
		if isLoopback(host) {
			mode = StartTLSOpportunistic
		}
	case StartTLSRequire, StartTLSOpportunistic, StartTLSOff:
	default:
		return nil, fmt.Errorf("mail: starttls %q: want require, opportunistic or off", cfg.StartTLS)
	}
	tc, err := tlsConfig(cfg, host)
	if err != nil {
		return nil, err
	}
	return &Sender{cfg: cfg, from: from, host: host, startTLS: mode, tls: tc}, nil
}

// tlsConfig is the configuration that verifies the server: the system
// roots plus CAFile, and the name TLSServerName or host.
func tlsConfig(cfg SMTPConfig, host string) (*tls.Config, error) {
	name := cfg.TLSServerName
	if name == "" {
		name = host
	}
	if cfg.TLSConfig != nil {
		c := cfg.TLSConfig.Clone()
		if c.ServerName == "" {
			c.ServerName = name
		}
		return c, nil
	}
	c := &tls.Config{ServerName: name, MinVersion: tls.VersionTLS12}
	if cfg.CAFile != "" {
		pem, err := os.ReadFile(cfg.CAFile)
		if err != nil {
			return nil, fmt.Errorf("mail: ca_file: %w", err)
		}
		pool, err := x509.SystemCertPool()
		if err != nil || pool == nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("mail: ca_file %s: no PEM certificate in it", cfg.CAFile)
		}
		c.RootCAs = pool
	}
	return c, nil
}

// Post composes msg and sends it to the recipients of to: its To, with
// its Cc in copy ("mail:dev@lists.example.org?cc=author%40example.org").
// It returns the Message-ID, in angle brackets.
func (s *Sender) Post(ctx context.Context, to target.Target, msg answer.Answer) (string, error) {
	if to.Venue != target.Mail || len(to.To) == 0 {
		return "", fmt.Errorf("mail target %q: want ADDRESS[,ADDRESS], such as dev@lists.example.org", to.Where())
	}
	return s.Send(ctx, addrs(to.To), addrs(to.Cc), msg)
}

// addrs points at a copy of each of as.
func addrs(as []gomail.Address) []*gomail.Address {
	var ps []*gomail.Address
	for _, a := range as {
		ps = append(ps, &a)
	}
	return ps
}

// Send composes msg to to and cc and delivers it, retrying transient
// failures. It returns the Message-ID, in angle brackets.
func (s *Sender) Send(ctx context.Context, to, cc []*gomail.Address, msg answer.Answer) (string, error) {
	var buf bytes.Buffer
	id, err := Compose(&buf, Outgoing{From: s.from, To: to, Cc: cc, Date: time.Now(), Msg: msg, Format: s.format(to, cc)})
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

// format is the Format of an answer to these recipients: a listed list's,
// else the default.
func (s *Sender) format(to, cc []*gomail.Address) Format {
	for _, a := range append(append([]*gomail.Address(nil), to...), cc...) {
		for list, f := range s.cfg.Lists {
			if strings.EqualFold(list, a.Address) {
				return f
			}
		}
	}
	return s.cfg.Format
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
	c, err := s.open(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.Mail(s.from.Address, nil); err != nil {
		return classify(err)
	}
	// A recipient refused for good (5xx: an author's address the relay
	// will not take) does not keep the answer from the others, the list
	// first; a refusal that may pass (4xx) retries the whole transaction,
	// before any data was sent.
	var accepted int
	var refused []error
	for _, r := range rcpt {
		err := c.Rcpt(r, nil)
		var se *smtp.SMTPError
		switch {
		case err == nil:
			accepted++
		case errors.As(err, &se) && se.Code >= 500:
			refused = append(refused, fmt.Errorf("recipient %s: %w", r, err))
		default:
			return classify(fmt.Errorf("recipient %s: %w", r, err))
		}
	}
	if accepted == 0 {
		return errors.Join(refused...)
	}
	w, err := c.Data()
	if err != nil {
		return classify(err)
	}
	if _, err := w.Write(data); err != nil {
		return classify(err)
	}
	if err := w.Close(); err != nil {
		return classify(err)
	}
	for _, err := range refused {
		s.log().Warn("mail recipient refused; sent to the others", "server", s.cfg.Addr, "err", err)
	}
	// The message is accepted; a lost QUIT reply changes nothing.
	_ = c.Quit()
	return nil
}

// open connects to the server, upgrades to TLS as configured and signs
// in when a user is set: what every delivery starts with.
func (s *Sender) open(ctx context.Context) (*smtp.Client, error) {
	upgrade := !s.cfg.ImplicitTLS && s.startTLS == StartTLSRequire
	c, err := s.connect(ctx, upgrade)
	if err != nil {
		return nil, err
	}
	if ok, _ := c.Extension("STARTTLS"); ok && !s.cfg.ImplicitTLS && s.startTLS == StartTLSOpportunistic {
		// go-smtp upgrades only on a fresh client: say goodbye and
		// reconnect with STARTTLS.
		_ = c.Quit()
		c.Close()
		if c, err = s.connect(ctx, true); err != nil {
			return nil, err
		}
	}
	if s.cfg.User != "" {
		_, encrypted := c.TLSConnectionState()
		if !encrypted && !isLoopback(s.host) {
			c.Close()
			return nil, fmt.Errorf("%s offers no STARTTLS: refusing to send the SMTP password unencrypted", s.cfg.Addr)
		}
		if !c.SupportsAuth(sasl.Plain) {
			c.Close()
			return nil, fmt.Errorf("%s does not offer AUTH PLAIN", s.cfg.Addr)
		}
		if err := c.Auth(sasl.NewPlainClient("", s.cfg.User, s.cfg.Password)); err != nil {
			c.Close()
			return nil, classify(fmt.Errorf("AUTH PLAIN: %w", err))
		}
	}
	return c, nil
}

func (s *Sender) log() *slog.Logger {
	if s.cfg.Log != nil {
		return s.cfg.Log
	}
	return slog.Default()
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
		tc := tls.Client(conn, s.tls)
		if err := tc.HandshakeContext(ctx); err != nil {
			conn.Close()
			return nil, s.tlsError(err)
		}
		conn = tc
	}
	var c *smtp.Client
	if startTLS {
		if c, err = smtp.NewClientStartTLS(conn, s.tls); err != nil {
			conn.Close()
			if strings.Contains(err.Error(), "doesn't support STARTTLS") {
				return nil, fmt.Errorf("%s offers no STARTTLS and starttls is require (set starttls: opportunistic or off to send in plain text)", s.cfg.Addr)
			}
			return nil, s.tlsError(err)
		}

	} else {
		c = smtp.NewClient(conn)
	}
	name := s.cfg.LocalName
	if name == "" {
		name = "localhost"
	}
	// With STARTTLS the handshake happens here, on first use.
	if err := c.Hello(name); err != nil {
		c.Close()
		if startTLS {
			return nil, s.tlsError(err)
		}
		return nil, classify(err)
	}
	return c, nil
}

// tlsError explains a failed TLS handshake: a certificate that does not
// verify is permanent (retrying cannot help) and the message says which
// setting fixes it.
func (s *Sender) tlsError(err error) error {
	var (
		host x509.HostnameError
		ua   x509.UnknownAuthorityError
		inv  x509.CertificateInvalidError
		ver  *tls.CertificateVerificationError
	)
	switch {
	case errors.As(err, &host):
		return fmt.Errorf("TLS with %s: the certificate does not name %q (set tls_server_name to a name it carries, or connect to that name): %w", s.cfg.Addr, s.tls.ServerName, err)
	case errors.As(err, &ua):
		return fmt.Errorf("TLS with %s: the certificate is signed by an unknown authority (set ca_file to the server's certificate or its CA): %w", s.cfg.Addr, err)
	case errors.As(err, &inv), errors.As(err, &ver):
		return fmt.Errorf("TLS with %s: %w", s.cfg.Addr, err)
	}
	return classify(fmt.Errorf("TLS with %s: %w", s.cfg.Addr, err))
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
