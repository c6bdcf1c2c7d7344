package mail

import (
	"context"
	"crypto/tls"
	"strings"
	"testing"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapserver"
	"github.com/emersion/go-imap/v2/imapserver/imapmemserver"
)

// startIMAP serves an in-memory IMAP server over TLS on loopback, with
// one user, and returns its address and a client TLS config trusting it.
func startIMAP(t *testing.T, user, pass string) (string, *tls.Config) {
	mem := imapmemserver.New()
	u := imapmemserver.NewUser(user, pass)
	if err := u.Create("INBOX", nil); err != nil {
		t.Fatal(err)
	}
	mem.AddUser(u)
	cert, roots := selfSigned(t)
	srv := imapserver.New(&imapserver.Options{
		NewSession: func(*imapserver.Conn) (imapserver.Session, *imapserver.GreetingData, error) {
			return mem.NewSession(), nil, nil
		},
		Caps:      imap.CapSet{imap.CapIMAP4rev1: {}, imap.CapIMAP4rev2: {}},
		TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}},
	})
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}})
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String(), &tls.Config{RootCAs: roots, ServerName: "127.0.0.1"}
}

func TestCheckIMAP(t *testing.T) {
	addr, tc := startIMAP(t, "perfbot", "imap-Secret-pw")
	got, err := CheckIMAP(context.Background(), addr, "perfbot", "imap-Secret-pw", tc)
	if err != nil {
		t.Fatal(err)
	}
	if want := addr + ": signed in as perfbot"; got != want {
		t.Errorf("CheckIMAP = %q, want %q", got, want)
	}
	_, err = CheckIMAP(context.Background(), addr, "perfbot", "wrong-imap-pw-42", tc)
	if err == nil || !strings.Contains(err.Error(), "login as perfbot") || strings.Contains(err.Error(), "wrong-imap-pw-42") {
		t.Errorf("wrong password: err = %v, want a login failure without the password", err)
	}
	// A server whose certificate is not trusted gets no password.
	if _, err := CheckIMAP(context.Background(), addr, "perfbot", "imap-Secret-pw", &tls.Config{ServerName: "127.0.0.1"}); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("untrusted server: err = %v, want a certificate error", err)
	}
}
