package mail

import (
	"fmt"
	"strings"
	"testing"
)

func TestSeriesRoot(t *testing.T) {
	for key, want := range map[string]string{
		"mail:cover@example.org/v1":          "cover@example.org",
		"mail:a/v2@example.org/v12":          "a/v2@example.org",
		"mail:cover@example.org/v1/confirm":  "",
		"mail:cover@example.org/false-alarm": "",
		"github:acme/store#1/v1":             "",
		"mail:/v1":                           "",
		"mail:a b@c/v1":                      "",
	} {
		got, ok := SeriesRoot(key)
		if got != want || ok != (want != "") {
			t.Errorf("SeriesRoot(%q) = %q, %v; want %q", key, got, ok, want)
		}
		if ok && SeriesKey(got, 1) != SeriesKeyPrefix(got)+"1" {
			t.Errorf("SeriesKey and SeriesKeyPrefix of %q disagree", got)
		}
	}
}

func TestPlainText(t *testing.T) {
	for name, tt := range map[string]struct{ raw, want, err string }{
		"no content type": {raw: "Subject: x\n\nhello\n", want: "hello\n"},
		"base64": {raw: "Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: base64\n\nL3BlcmZib3QgZmFsc2UtYWxhcm0gV29yaw==\n",
			want: "/perfbot false-alarm Work"},
		"html only": {raw: "Content-Type: text/html\n\n<p>/perfbot false-alarm Work</p>\n", err: "no text/plain part"},
		"attachment skipped": {raw: "Content-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/plain\nContent-Disposition: attachment; filename=x.txt\n\n" +
			"/perfbot false-alarm Attached\n--b\nContent-Type: text/plain\n\nmine\n--b--\n", want: "mine"},
		"too deep": {raw: nested(12), err: "nested deeper"},
		"deep":     {raw: nested(3), want: "x"},
	} {
		got, err := PlainText([]byte(tt.raw))
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: %q, %v; want an error saying %q", name, got, err, tt.err)
			}
			continue
		}
		if err != nil || strings.TrimSpace(got) != strings.TrimSpace(tt.want) {
			t.Errorf("%s: %q, %v; want %q", name, got, err, tt.want)
		}
	}
}

// nested is a mail whose text is n multiparts deep.
func nested(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "Content-Type: multipart/mixed; boundary=b%d\n\n--b%d\n", i, i)
	}
	b.WriteString("Content-Type: text/plain\n\nx\n")
	for i := n - 1; i >= 0; i-- {
		fmt.Fprintf(&b, "--b%d--\n", i)
	}
	return b.String()
}

func FuzzPlainText(f *testing.F) {
	f.Add([]byte("Content-Type: multipart/alternative; boundary=b\n\n--b\nContent-Type: text/plain\nContent-Transfer-Encoding: quoted-printable\n\n/perfbot false-alarm A =\n-- x\n--b--\n"))
	f.Add([]byte("Subject: x\n\n> /perfbot false-alarm A\n"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		text, err := PlainText(raw)
		if err != nil {
			return
		}
		if len(text) > 4*maxTextBytes {
			t.Fatalf("text of %d bytes", len(text))
		}
	})
}
