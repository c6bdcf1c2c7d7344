package redact

import (
	"bytes"
	"testing"
)

// FuzzWriter checks that writing in two pieces, split anywhere, gives what
// String gives for the whole, and never passes a secret on.
func FuzzWriter(f *testing.F) {
	f.Add("abc "+token+" def", 5)
	f.Add(token[:10]+"\n"+token, 11)
	f.Add("ghp_ghp_R3alLyS3cretT0ken+/=abc", 3)
	f.Add(token+token, len(token))
	r := New(token, "second-secret\nwith-newline")
	f.Fuzz(func(t *testing.T, in string, split int) {
		if split < 0 || split > len(in) {
			split = len(in) / 2
		}
		var buf bytes.Buffer
		w := NewWriter(&buf, r)
		w.Write([]byte(in[:split]))
		w.Write([]byte(in[split:]))
		w.Close()
		if got, want := buf.String(), r.String(in); got != want {
			t.Errorf("split at %d: got %q, want %q", split, got, want)
		}
		if bytes.Contains(buf.Bytes(), []byte(token)) {
			t.Errorf("secret passed on: %q", buf.String())
		}
	})
}
