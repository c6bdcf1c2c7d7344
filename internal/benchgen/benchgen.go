// Package benchgen writes synthetic Go benchmark output of any size, for
// measuring perfbot's own cost on large suites. The output looks like
// `go test -bench -count N -benchmem`: configuration lines, then one line
// per benchmark and round with ns/op, B/op and allocs/op, padded as the
// testing package pads them.
package benchgen

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
)

// Options describe the suite to write.
type Options struct {
	// Benchmarks is the number of distinct benchmarks; Count the lines
	// (samples) each gets.
	Benchmarks, Count int
	// Candidate makes every other benchmark 3% faster and every tenth
	// allocate 16 bytes more, as a patched side.
	Candidate bool
	// Seed seeds the noise (1% normal spread around each benchmark's time).
	Seed uint64
	// Packages spreads the benchmarks over this many "pkg:" blocks (at
	// least 1).
	Packages int
}

// Write writes the suite to w.
func Write(w io.Writer, o Options) error {
	bw := bufio.NewWriter(w)
	rng := rand.New(rand.NewPCG(o.Seed, 1))
	pkgs := max(o.Packages, 1)
	per := (o.Benchmarks + pkgs - 1) / pkgs
	fmt.Fprintf(bw, "goos: linux\ngoarch: amd64\n")
	sizes := []string{"small", "medium", "large", "huge"}
	for i := 0; i < o.Benchmarks; i++ {
		if i%per == 0 {
			fmt.Fprintf(bw, "pkg: example.org/store/internal/pkg%02d\ncpu: Intel(R) Xeon(R) CPU @ 2.20GHz\n", i/per)
		}
		ns := 50 + float64(i%977)*3.7
		if o.Candidate && i%2 == 0 {
			ns *= 0.97
		}
		bytes := 64 + 8*(i%13)
		if o.Candidate && i%10 == 0 {
			bytes += 16
		}
		allocs := 1 + i%5
		name := fmt.Sprintf("BenchmarkEncodeRecordBatch%04d/codec=%s/size=%s-8", i/40, []string{"json", "proto"}[i%2], sizes[(i/2)%4])
		if i%40 >= 8 {
			name = fmt.Sprintf("BenchmarkEncodeRecordBatch%04d/variant%02d/size=%s-8", i/40, i%40, sizes[(i/2)%4])
		}
		for j := 0; j < o.Count; j++ {
			v := ns * (1 + 0.01*rng.NormFloat64())
			iters := int(1e9 / v)
			fmt.Fprintf(bw, "%-66s\t%10d\t%10.2f ns/op\t%8d B/op\t%8d allocs/op\n", name, iters, v, bytes, allocs)
		}
	}
	fmt.Fprintf(bw, "PASS\nok  \texample.org/store\t123.456s\n")
	return bw.Flush()
}
