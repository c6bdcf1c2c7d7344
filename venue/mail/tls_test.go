package mail

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfbot/perfbot/target"
	"github.com/perfbot/perfbot/venue/retry"
)

// testCA makes a certificate authority and a server certificate it signs
// for names only (no IP address, as a relay's certificate usually is),
// and writes the authority's certificate to a PEM file.
func testCA(t *testing.T, names ...string) (tls.Certificate, string) {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "perfbot test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: names[0]}, DNSNames: names,
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(file, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), 0o644); err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, file
}

func noRetry() retry.Policy {
	return retry.Policy{Attempts: 3, Sleep: func(context.Context, time.Duration) error { return nil }}
}

// TestSendTLSModes: the server's name is verified against tls_server_name
// with the CA of ca_file; starttls require, opportunistic and off behave
// as documented.
func TestSendTLSModes(t *testing.T) {
	cert, caFile := testCA(t, "relay.test")
	withTLS := startSMTP(t, smtpOptions{cert: &cert})
	plain := startSMTP(t, smtpOptions{})
	send := func(ts *testSMTP, cfg SMTPConfig) error {
		t.Helper()
		cfg.Addr, cfg.From, cfg.Retry = ts.addr, "perfbot <perfbot@example.org>", noRetry()
		s, err := NewSender(cfg)
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.Post(context.Background(), target.MustParse("mail:dev@example.org"), report())
		return err
	}
	if err := send(withTLS, SMTPConfig{StartTLS: StartTLSRequire, CAFile: caFile, TLSServerName: "relay.test"}); err != nil {
		t.Fatalf("require with ca_file and tls_server_name: %v", err)
	}
	if len(withTLS.tls) != 1 || !withTLS.tls[0] {
		t.Fatalf("delivered %v, want one message over TLS", withTLS.tls)
	}
	tests := []struct {
		name string
		ts   *testSMTP
		cfg  SMTPConfig
		want string // error text; "" means delivered
		tls  bool
	}{
		{"wrong name", withTLS, SMTPConfig{CAFile: caFile}, `does not name "127.0.0.1" (set tls_server_name`, false},
		{"unknown CA", withTLS, SMTPConfig{TLSServerName: "relay.test"}, "unknown authority (set ca_file", false},
		{"opportunistic still verifies", withTLS, SMTPConfig{StartTLS: StartTLSOpportunistic}, "does not name", false},
		{"opportunistic upgrades", withTLS, SMTPConfig{StartTLS: StartTLSOpportunistic, CAFile: caFile, TLSServerName: "relay.test"}, "", true},
		{"off", withTLS, SMTPConfig{StartTLS: StartTLSOff}, "", false},
		{"require without STARTTLS", plain, SMTPConfig{StartTLS: StartTLSRequire}, "offers no STARTTLS and starttls is require", false},
		{"opportunistic without STARTTLS", plain, SMTPConfig{}, "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := len(tc.ts.tls)
			err := send(tc.ts, tc.cfg)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if len(tc.ts.tls) != before+1 || tc.ts.tls[before] != tc.tls {
					t.Fatalf("delivered over TLS: %v, want one more, TLS %v", tc.ts.tls[before:], tc.tls)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "gave up") || retry.IsTransient(err) {
				t.Errorf("a certificate or policy problem was retried: %v", err)
			}
			if len(tc.ts.tls) != before {
				t.Error("delivered anyway")
			}
		})
	}
	if _, err := NewSender(SMTPConfig{Addr: "a:25", From: "p@example.org", StartTLS: "always"}); err == nil || !strings.Contains(err.Error(), "want require, opportunistic or off") {
		t.Errorf("bad mode: %v", err)
	}
	if _, err := NewSender(SMTPConfig{Addr: "a:25", From: "p@example.org", CAFile: filepath.Join(t.TempDir(), "none.pem")}); err == nil || !strings.Contains(err.Error(), "ca_file") {
		t.Errorf("missing ca_file: %v", err)
	}
}

// TestPostfixSTARTTLS delivers through the local postfix with STARTTLS
// required, verifying its self-signed certificate (ssl-cert's snakeoil,
// which names the host, not 127.0.0.1) with ca_file and tls_server_name,
// as docs/venues.md describes; without tls_server_name it must fail.
func TestPostfixSTARTTLS(t *testing.T) {
	if os.Getenv("PERFBOT_TEST_POSTFIX") != "1" {
		t.Skip("PERFBOT_TEST_POSTFIX is not 1: not delivering through a local postfix")
	}
	certFile := envOr("PERFBOT_TEST_POSTFIX_CERT", "/etc/ssl/certs/ssl-cert-snakeoil.pem")
	data, err := os.ReadFile(certFile)
	if err != nil {
		t.Fatalf("postfix's certificate: %v (.ci/services turns on STARTTLS with it)", err)
	}
	block, _ := pem.Decode(data)
	if block == nil {
		t.Fatalf("%s holds no PEM certificate", certFile)
	}
	leaf, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	name := leaf.Subject.CommonName
	if len(leaf.DNSNames) > 0 {
		name = leaf.DNSNames[0]
	}
	rcpt := envOr("PERFBOT_TEST_POSTFIX_RCPT", "perfbot-test@localhost")
	maildir := envOr("PERFBOT_TEST_POSTFIX_MAILDIR", "/home/perfbot-test/Maildir")

	s, err := NewSender(SMTPConfig{Addr: "127.0.0.1:25", From: "perfbot <perfbot@localhost>", StartTLS: StartTLSRequire, CAFile: certFile, Retry: noRetry()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Post(context.Background(), target.MustParse("mail:"+rcpt), report()); err == nil || !strings.Contains(err.Error(), "tls_server_name") {
		t.Fatalf("without tls_server_name: %v, want a name mismatch naming tls_server_name", err)
	}
	s, err = NewSender(SMTPConfig{Addr: "127.0.0.1:25", From: "perfbot <perfbot@localhost>", StartTLS: StartTLSRequire, CAFile: certFile, TLSServerName: name, Retry: noRetry()})
	if err != nil {
		t.Fatal(err)
	}
	m := report()
	m.Key = "postfix-tls-" + time.Now().Format("20060102T150405.000000000")
	id, err := s.Post(context.Background(), target.MustParse("mail:"+rcpt), m)
	if err != nil {
		t.Fatalf("STARTTLS to postfix as %s: %v", name, err)
	}
	got := waitMaildir(t, maildir, id)
	if !bytes.Contains(got, []byte("with ESMTPS")) {
		t.Errorf("postfix did not receive it over TLS (no \"with ESMTPS\" in Received):\n%.600s", got)
	}
}

// waitMaildir waits for the message with Message-ID id in maildir/new.
func waitMaildir(t *testing.T, maildir, id string) []byte {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		ents, _ := os.ReadDir(filepath.Join(maildir, "new"))
		for _, e := range ents {
			data, err := os.ReadFile(filepath.Join(maildir, "new", e.Name()))
			if err == nil && bytes.Contains(data, []byte(id)) {
				return data
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("message %s did not arrive in %s/new within 30s (see /var/log/mail.log or `postqueue -p`)", id, maildir)
	return nil
}
