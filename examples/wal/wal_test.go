package wal

import (
	"bytes"
	"path/filepath"
	"testing"
)

func TestAppendReplay(t *testing.T) {
	path := filepath.Join(t.TempDir(), "seg")
	l, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]byte{[]byte("a"), bytes.Repeat([]byte("b"), 1000), {}}
	for _, r := range want {
		if err := l.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	var got [][]byte
	if err := Replay(path, func(b []byte) error { got = append(got, b); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("replayed %d records, want %d", len(got), len(want))
	}
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Errorf("record %d = %q, want %q", i, got[i], want[i])
		}
	}
}

// BenchmarkAppend appends 128-byte records.
func BenchmarkAppend(b *testing.B) {
	l, err := Open(filepath.Join(b.TempDir(), "seg"))
	if err != nil {
		b.Fatal(err)
	}
	rec := bytes.Repeat([]byte("x"), 128)
	b.SetBytes(int64(len(rec)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := l.Append(rec); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if err := l.Close(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkChecksum measures the record checksum alone; the quickstart's
// patch leaves it untouched.
func BenchmarkChecksum(b *testing.B) {
	rec := bytes.Repeat([]byte("x"), 4096)
	b.SetBytes(int64(len(rec)))
	for i := 0; i < b.N; i++ {
		checksum(rec)
	}
}
