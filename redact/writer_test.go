package redact

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

func writeFile(name, s string) error { return os.WriteFile(name, []byte(s), 0o600) }

func TestWriterSplitWrites(t *testing.T) {
	r := New(token)
	in := "line one\nthe token is " + token + " here\n" + token + "\nno newline " + token
	want := r.String(in)
	for _, size := range []int{1, 2, 3, 5, 7, 16, len(in)} {
		var buf bytes.Buffer
		w := NewWriter(&buf, r)
		for i := 0; i < len(in); i += size {
			n, err := w.Write([]byte(in[i:min(i+size, len(in))]))
			if err != nil || n != min(size, len(in)-i) {
				t.Fatalf("size %d: Write = %d, %v", size, n, err)
			}
			if strings.Contains(buf.String(), token[:len(token)-1]) {
				t.Fatalf("size %d: partial secret passed on: %q", size, buf.String())
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if buf.String() != want {
			t.Errorf("size %d: got %q, want %q", size, buf.String(), want)
		}
	}
}

func TestWriterPassesWholeLines(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf, New(token))
	w.Write([]byte("BenchmarkX 1 2 ns/op\n"))
	if buf.String() != "BenchmarkX 1 2 ns/op\n" {
		t.Errorf("complete line held back: %q", buf.String())
	}
}
