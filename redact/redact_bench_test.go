package redact

import (
	"bytes"
	"fmt"
	"io"
	"testing"
)

// benchOutput is 16 MiB of Go benchmark output (the default output cap) with
// one secret near the end.
func benchOutput() []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < 16<<20; i++ {
		fmt.Fprintf(&b, "BenchmarkEncode/size=%d-8   \t  %d\t  %d.5 ns/op\t  %d B/op\t  3 allocs/op\n", i%64, 1000+i, 300+i%97, 48+i%5)
	}
	b.WriteString("leaked " + token + "\n")
	return b.Bytes()
}

func BenchmarkBytes(b *testing.B) {
	r := New(token, "second-secret-value", "third_secret_value_123")
	data := benchOutput()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		r.Bytes(data)
	}
}

func BenchmarkWriter(b *testing.B) {
	r := New(token, "second-secret-value", "third_secret_value_123")
	data := benchOutput()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		w := NewWriter(io.Discard, r)
		for off := 0; off < len(data); off += 32 << 10 {
			w.Write(data[off:min(off+32<<10, len(data))])
		}
		w.Close()
	}
}

// BenchmarkBytesOneToken is the common case: one GitHub-style token.
func BenchmarkBytesOneToken(b *testing.B) {
	r := New("ghp_16C7e42F292c6912E7710c838347Ae178B4a")
	data := benchOutput()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		r.Bytes(data)
	}
}
