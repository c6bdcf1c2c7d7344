package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/parse"
	"github.com/perfbot/perfbot/report"
)

// synthGoBench writes Go benchmark output for n benchmarks with count
// samples each (ns/op, B/op, allocs/op), the candidate 3% faster on every
// other benchmark.
func synthGoBench(n, count int, candidate bool, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, 1))
	var b bytes.Buffer
	b.WriteString("goos: linux\ngoarch: amd64\npkg: example.org/big\ncpu: test\n")
	for i := 0; i < n; i++ {
		base := 100 + float64(i%977)
		if candidate && i%2 == 0 {
			base *= 0.97
		}
		for j := 0; j < count; j++ {
			v := base * (1 + 0.01*rng.NormFloat64())
			fmt.Fprintf(&b, "BenchmarkOp%d/size=%d-8 \t 1000000\t %.2f ns/op\t %d B/op\t %d allocs/op\n", i/10, i%10, v, 64, 2)
		}
	}
	return b.Bytes()
}

// BenchmarkPipeline measures parse + compare + render of 10,000 benchmarks
// × 10 samples per side (3 units each), the work of one `perfbot report`.
func BenchmarkPipeline(b *testing.B) {
	baseData := synthGoBench(benchCount(), 10, false, 1)
	candData := synthGoBench(benchCount(), 10, true, 2)
	if dir := os.Getenv("PERFBOT_BENCH_DUMP"); dir != "" {
		// Lets benchstat be timed on the very same input.
		_ = os.WriteFile(dir+"/base.txt", baseData, 0o644)
		_ = os.WriteFile(dir+"/cand.txt", candData, 0o644)
	}
	b.SetBytes(int64(len(baseData) + len(candData)))
	ctx := context.Background()
	for _, format := range []string{"text", "json", "markdown"} {
		b.Run(format, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				base, err := parse.Bytes(ctx, baseData, "base.txt", "gobench")
				if err != nil {
					b.Fatal(err)
				}
				cand, err := parse.Bytes(ctx, candData, "cand.txt", "gobench")
				if err != nil {
					b.Fatal(err)
				}
				for _, r := range base {
					r.Variant = "base"
				}
				for _, r := range cand {
					r.Variant = "cand"
				}
				cmp, err := compare.Compare(append(base, cand...), compare.Options{Base: "base", Candidates: []string{"cand"}})
				if err != nil {
					b.Fatal(err)
				}
				if err := report.Render(io.Discard, format, cmp); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchCount is the number of benchmarks BenchmarkPipeline generates:
// 10,000, or PERFBOT_BENCH_N.
func benchCount() int {
	if n, err := strconv.Atoi(os.Getenv("PERFBOT_BENCH_N")); err == nil && n > 0 {
		return n
	}
	return 10000
}
