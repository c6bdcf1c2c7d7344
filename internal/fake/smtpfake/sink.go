// Package smtpfake is an SMTP server for tests that keeps the messages it
// receives and can be stopped and started again on the same address, as a
// mail server that goes down and comes back.
package smtpfake

import (
	"io"
	"net"
	"sync"
	"testing"

	"github.com/emersion/go-smtp"
)

// Sink is an SMTP server on loopback keeping the messages it receives; it can be
// stopped and started again on the same address.
type Sink struct {
	mu sync.Mutex
	// Addr is the address it listens on once started.
	Addr string
	srv  *smtp.Server
	ln   net.Listener
	msgs []string
}

// NewSession starts a session keeping the message it receives.
func (s *Sink) NewSession(*smtp.Conn) (smtp.Session, error) { return &session{sink: s}, nil }

type session struct{ sink *Sink }

func (*session) Reset()                               {}
func (*session) Logout() error                        { return nil }
func (*session) Mail(string, *smtp.MailOptions) error { return nil }
func (*session) Rcpt(string, *smtp.RcptOptions) error { return nil }
func (ss *session) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	ss.sink.mu.Lock()
	ss.sink.msgs = append(ss.sink.msgs, string(b))
	ss.sink.mu.Unlock()
	return nil
}

// Start listens on the sink's address (a free port the first time) and
// serves.
func (s *Sink) Start(t *testing.T) {
	t.Helper()
	addr := s.Addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	s.Addr, s.ln = ln.Addr().String(), ln
	s.srv = smtp.NewServer(s)
	s.srv.Domain = "localhost"
	go s.srv.Serve(ln)
}

// Stop closes the listener (Serve may not have taken it yet) and the
// server.
func (s *Sink) Stop() {
	s.ln.Close()
	s.srv.Close()
}

// Received are the messages received so far.
func (s *Sink) Received() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.msgs...)
}
