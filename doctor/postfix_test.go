package doctor

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"os"
	"strings"
	"testing"
)

// TestMailAgainstPostfix checks the mail venue against the local postfix
// that .ci/services starts on 127.0.0.1:25 with STARTTLS (ssl-cert's
// snakeoil certificate, which names the host): with ca_file and
// tls_server_name the session works; with a name the certificate lacks it
// fails, and no message is sent either way.
func TestMailAgainstPostfix(t *testing.T) {
	if os.Getenv("PERFBOT_TEST_POSTFIX") != "1" {
		t.Skip("PERFBOT_TEST_POSTFIX is not 1: no local postfix to check (.ci/services starts one)")
	}
	certFile := "/etc/ssl/certs/ssl-cert-snakeoil.pem"
	data, err := os.ReadFile(certFile)
	if err != nil {
		t.Fatalf("postfix's certificate: %v", err)
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
	venue := func(server string) string {
		return "venues:\n  mail: {smtp: \"127.0.0.1:25\", from: \"perfbot <perfbot@localhost>\", starttls: require, ca_file: " + certFile +
			", tls_server_name: " + server + ", user_env: DOCTOR_NO_USER}\n"
	}
	r := byName(Venues(context.Background(), parse(t, venue(name)), envOf(nil)))["mail smtp"]
	if r.Status != OK || !strings.Contains(r.Reason, "127.0.0.1:25: TLS 1.") || !strings.Contains(r.Reason, "no AUTH") {
		t.Errorf("mail smtp = %v %q, want ok over TLS", r.Status, r.Reason)
	}
	r = byName(Venues(context.Background(), parse(t, venue("wrong.example")), envOf(nil)))["mail smtp"]
	if r.Status != Fail || !strings.Contains(r.Reason, "tls_server_name") {
		t.Errorf("mail smtp with a wrong name = %v %q, want FAIL naming tls_server_name", r.Status, r.Reason)
	}
}
