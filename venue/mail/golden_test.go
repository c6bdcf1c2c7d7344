package mail

import (
	"bytes"
	"flag"
	"mime"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	gomail "github.com/emersion/go-message/mail"

	"github.com/perfbot/perfbot/answer"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

var boundaryRE = regexp.MustCompile(`boundary=([0-9a-f]+)`)

// TestComposeGolden pins the composed message, its random MIME boundaries
// replaced by BOUNDARY1, BOUNDARY2, ... in order of appearance.
func TestComposeGolden(t *testing.T) {
	from, _ := gomail.ParseAddress("perfbot <perfbot@example.org>")
	to := recipients("Store developers <dev@store.example.org>")
	cc := recipients("Alice Author <alice@sender.example>")
	m := report()
	m.Subject = "[PATCH v2 1/3] wal: batch syncs — 3.7× at 10 threads"
	var buf bytes.Buffer
	if _, err := Compose(&buf, Outgoing{From: from, To: to, Cc: cc, Date: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC), Msg: m, Format: rich}); err != nil {
		t.Fatal(err)
	}
	got := strings.ReplaceAll(buf.String(), "\r\n", "\n")
	for i, mm := range boundaryRE.FindAllStringSubmatch(got, -1) {
		got = strings.ReplaceAll(got, mm[1], "BOUNDARY"+string(rune('1'+i)))
	}
	path := filepath.Join("testdata", "report.eml.golden")
	if *update {
		_ = os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update creates it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs (go test -update rewrites it); got:\n%s", path, got)
	}
	// The non-ASCII subject is RFC 2047 encoded and decodes back.
	var dec mime.WordDecoder
	for _, line := range strings.Split(got, "\n") {
		if s, ok := strings.CutPrefix(line, "Subject: "); ok {
			if d, err := dec.DecodeHeader(s); err != nil || d != "Re: "+m.Subject {
				t.Errorf("subject %q decodes to %q, %v", s, d, err)
			}
		}
	}
}

func BenchmarkCompose(b *testing.B) {
	from, _ := gomail.ParseAddress("perfbot <perfbot@example.org>")
	to := recipients("dev@store.example.org")
	m := report()
	m.Set(answer.Text, answer.Rendering{Full: strings.Repeat("BenchmarkWAL/threads=10     1.00 ±  2%   3.70 ±  1%   3.7x\n", 2000)})
	m.Set(answer.HTML, answer.Rendering{Full: strings.Repeat("<tr><td>BenchmarkWAL/threads=10</td><td>3.7x</td></tr>\n", 2000)})
	m.Attachments[0].Data = bytes.Repeat([]byte{0x89, 'P', 'N', 'G'}, 50_000)
	var buf bytes.Buffer
	for b.Loop() {
		buf.Reset()
		if _, err := Compose(&buf, Outgoing{From: from, To: to, Msg: m, Format: rich}); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(buf.Len()))
}
