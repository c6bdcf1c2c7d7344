package mail

import (
	"context"
	"strings"
	"testing"
)

func TestCheckSignsInWithoutSending(t *testing.T) {
	ts := startSMTP(t, smtpOptions{tls: true, user: "perfbot", pass: "smtp-Secret-pass"})
	s := newSender(t, ts, "perfbot", "smtp-Secret-pass")
	got, err := s.Check(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if want := ts.addr + ": TLS 1.3, AUTH PLAIN as perfbot"; got != want {
		t.Errorf("Check = %q, want %q", got, want)
	}
	if ts.authed != 1 || len(ts.froms) != 0 {
		t.Errorf("authed %d, MAIL FROM %v: want one AUTH and no message", ts.authed, ts.froms)
	}
}

func TestCheckFailsOnBadPassword(t *testing.T) {
	ts := startSMTP(t, smtpOptions{tls: true, user: "perfbot", pass: "right-password"})
	s := newSender(t, ts, "perfbot", "wrong-password-123")
	_, err := s.Check(context.Background())
	if err == nil || !strings.Contains(err.Error(), "535") {
		t.Fatalf("err = %v, want the server's 535", err)
	}
	if strings.Contains(err.Error(), "wrong-password-123") || strings.Contains(err.Error(), plainBlob("perfbot", "wrong-password-123")) {
		t.Errorf("err %q holds the password", err)
	}
}

func TestCheckRefusesUntrustedServer(t *testing.T) {
	ts := startSMTP(t, smtpOptions{tls: true, user: "perfbot", pass: "p4ssword"})
	ts.roots = nil
	s := newSender(t, ts, "perfbot", "p4ssword")
	if _, err := s.Check(context.Background()); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("err = %v, want a certificate error", err)
	}
	if ts.authed != 0 {
		t.Error("password sent to an unverified server")
	}
}
