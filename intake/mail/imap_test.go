package mail

import (
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapserver"
	"github.com/emersion/go-imap/v2/imapserver/imapmemserver"
)

// TestIMAPSource serves a mailbox from an in-memory IMAP server on
// loopback and reads the series back through the IMAP source.
func TestIMAPSource(t *testing.T) {
	mem := imapmemserver.New()
	user := imapmemserver.NewUser("perfbot", "pw")
	if err := user.Create("INBOX", nil); err != nil {
		t.Fatal(err)
	}
	mem.AddUser(user)
	srv := imapserver.New(&imapserver.Options{
		NewSession: func(*imapserver.Conn) (imapserver.Session, *imapserver.GreetingData, error) {
			return mem.NewSession(), nil, nil
		},
		Caps:         imap.CapSet{imap.CapIMAP4rev1: {}, imap.CapIMAP4rev2: {}},
		InsecureAuth: true,
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })

	// Write the mails as a maildir, then append them to the mailbox.
	dir := t.TempDir()
	now := time.Now().Add(-time.Hour).Truncate(time.Second)
	sendEmail(t, dir, "c@x", "", "[PATCH 0/2] Two", "cover\n", now)
	sendEmail(t, dir, "p1@x", "c@x", "[PATCH 1/2] one", patchBody("a.go"), now.Add(time.Second))
	sendEmail(t, dir, "p2@x", "c@x", "[PATCH 2/2] two", patchBody("b.go"), now.Add(2*time.Second))
	sendEmail(t, dir, "r@x", "c@x", "Re: [PATCH 0/2] Two", "looks good\n", now.Add(3*time.Second))
	sendEmail(t, dir, "n@x", "", "Meeting notes", "not a patch\n", now.Add(4*time.Second))
	files, _ := filepath.Glob(filepath.Join(dir, "new", "*"))
	for _, f := range files {
		data, _ := os.ReadFile(f)
		if _, err := user.Append("INBOX", literal(data), &imap.AppendOptions{Time: now}); err != nil {
			t.Fatal(err)
		}
	}
	src := IMAP{Addr: ln.Addr().String(), User: "perfbot", Password: "pw", Insecure: true}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	msgs, err := src.Fetch(ctx, now.Add(-48*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	series := Assemble(msgs)
	// Five mails in the box; the patches and the reply are fetched, by
	// their headers, the other mail not at all.
	if len(msgs) != 4 || len(series) != 1 || series[0].Root != "c@x" || len(series[0].Patches) != 2 {
		t.Fatalf("read %d mails, %d series: %+v", len(msgs), len(series), series)
	}
	reply := msgs[3]
	if reply.ID != "r@x" || reply.Body != "" || !reply.IsReply() {
		t.Fatalf("reply %+v, want r@x by its header", reply)
	}
	if err := reply.Load(ctx); err != nil {
		t.Fatal(err)
	}
	if text, err := PlainText(reply.Raw); err != nil || text != "looks good\r\n" {
		t.Errorf("text of the reply: %q, %v", text, err)
	}
	if _, err := (IMAP{Addr: ln.Addr().String(), User: "perfbot", Password: "wrong", Insecure: true}).Fetch(ctx, now); err == nil {
		t.Error("login with a wrong password succeeded")
	}
}

func literal(data []byte) imap.LiteralReader { return &bytesLiteral{data: data} }

type bytesLiteral struct {
	data []byte
	off  int
}

func (b *bytesLiteral) Read(p []byte) (int, error) {
	if b.off >= len(b.data) {
		return 0, io.EOF
	}
	n := copy(p, b.data[b.off:])
	b.off += n
	return n, nil
}

func (b *bytesLiteral) Size() int64 { return int64(len(b.data)) }
