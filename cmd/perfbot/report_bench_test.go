package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/perfbot/perfbot/internal/benchgen"
)

// BenchmarkReport measures `perfbot report BASE CAND` end to end, reading
// files, on 10,000 benchmarks × 10 samples × 3 units a side (about 13 MB
// of Go benchmark output each; PERFBOT_BENCH_N changes the count), under
// both verdict methods.
func BenchmarkReport(b *testing.B) {
	dir := b.TempDir()
	files := []string{filepath.Join(dir, "base.txt"), filepath.Join(dir, "cand.txt")}
	var size int64
	for i, f := range files {
		w, err := os.Create(f)
		if err != nil {
			b.Fatal(err)
		}
		if err := benchgen.Write(w, benchgen.Options{Benchmarks: benchCount(), Count: 10, Candidate: i == 1, Seed: uint64(i + 1), Packages: 20}); err != nil {
			b.Fatal(err)
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
		st, _ := os.Stat(f)
		size += st.Size()
	}
	for _, method := range []string{"perfbot", "benchstat"} {
		b.Run(method, func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			args := append([]string{"report", "--method", method}, files...)
			for b.Loop() {
				if err := run(context.Background(), args, io.Discard, io.Discard); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
