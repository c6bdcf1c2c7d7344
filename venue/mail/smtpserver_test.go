package mail

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// testSMTP is a real SMTP server (go-smtp) on a free loopback port that
// delivers each message into a maildir, the way a local MTA would.
type testSMTP struct {
	addr    string
	maildir string
	user    string
	pass    string
	roots   *x509.CertPool // trusts the server's certificate, when TLS is on

	mu       sync.Mutex
	failRcpt []*smtp.SMTPError // replies to RCPT, in order, before accepting
	rcpts    [][]string
	froms    []string
	authed   int
	tls      []bool
}

type smtpOptions struct {
	tls        bool             // offer STARTTLS, with a certificate for 127.0.0.1
	cert       *tls.Certificate // offer STARTTLS with this certificate
	user, pass string
}

func startSMTP(t *testing.T, o smtpOptions) *testSMTP {
	t.Helper()
	ts := &testSMTP{maildir: filepath.Join(t.TempDir(), "Maildir"), user: o.user, pass: o.pass}
	for _, d := range []string{"tmp", "new", "cur"} {
		if err := os.MkdirAll(filepath.Join(ts.maildir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	srv := smtp.NewServer(smtp.BackendFunc(func(c *smtp.Conn) (smtp.Session, error) {
		return &testSession{ts: ts, conn: c}, nil
	}))
	srv.Domain = "mx.test"
	srv.ErrorLog = log.New(io.Discard, "", 0)
	srv.ReadTimeout = 10 * time.Second
	srv.WriteTimeout = 10 * time.Second
	srv.MaxMessageBytes = 10 << 20
	srv.AllowInsecureAuth = !o.tls && o.cert == nil
	if o.cert != nil {
		srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{*o.cert}}
	}
	if o.tls {
		cert, roots := selfSigned(t)
		srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}}
		ts.roots = roots
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ts.addr = l.Addr().String()
	done := make(chan struct{})
	go func() { defer close(done); _ = srv.Serve(l) }()
	t.Cleanup(func() { srv.Close(); <-done })
	return ts
}

// selfSigned makes a certificate for 127.0.0.1 and a pool trusting it.
func selfSigned(t *testing.T) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "mx.test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}

type testSession struct {
	ts     *testSMTP
	conn   *smtp.Conn
	authed bool
	from   string
	to     []string
}

func (s *testSession) AuthMechanisms() []string {
	if s.ts.user == "" {
		return nil
	}
	return []string{sasl.Plain}
}

func (s *testSession) Auth(mech string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(identity, user, pass string) error {
		if user != s.ts.user || pass != s.ts.pass {
			return &smtp.SMTPError{Code: 535, EnhancedCode: smtp.EnhancedCode{5, 7, 8}, Message: "Authentication credentials invalid"}
		}
		s.authed = true
		s.ts.mu.Lock()
		s.ts.authed++
		s.ts.mu.Unlock()
		return nil
	}), nil
}

func (s *testSession) Mail(from string, _ *smtp.MailOptions) error {
	if s.ts.user != "" && !s.authed {
		return &smtp.SMTPError{Code: 530, EnhancedCode: smtp.EnhancedCode{5, 7, 0}, Message: "Authentication required"}
	}
	s.from = from
	return nil
}

func (s *testSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.ts.mu.Lock()
	defer s.ts.mu.Unlock()
	if len(s.ts.failRcpt) > 0 {
		e := s.ts.failRcpt[0]
		s.ts.failRcpt = s.ts.failRcpt[1:]
		return e
	}
	s.to = append(s.to, to)
	return nil
}

// Data delivers into the maildir: write under tmp/, then rename into new/.
func (s *testSession) Data(r io.Reader) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.ts.mu.Lock()
	n := len(s.ts.rcpts)
	s.ts.rcpts = append(s.ts.rcpts, s.to)
	s.ts.froms = append(s.ts.froms, s.from)
	_, isTLS := s.conn.TLSConnectionState()
	s.ts.tls = append(s.ts.tls, isTLS)
	s.ts.mu.Unlock()
	name := fmt.Sprintf("%d.%d_%d.mx.test", time.Now().Unix(), os.Getpid(), n)
	tmp := filepath.Join(s.ts.maildir, "tmp", name)
	hdr := fmt.Sprintf("Return-Path: <%s>\r\nDelivered-To: %s\r\n", s.from, s.to[0])
	if err := os.WriteFile(tmp, append([]byte(hdr), data...), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(s.ts.maildir, "new", name))
}

func (s *testSession) Reset()        { s.from, s.to = "", nil }
func (s *testSession) Logout() error { return nil }

// delivered reads the maildir's new/ messages.
func (ts *testSMTP) delivered(t *testing.T) [][]byte {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(ts.maildir, "new"))
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for _, e := range ents {
		data, err := os.ReadFile(filepath.Join(ts.maildir, "new", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, data)
	}
	return out
}
