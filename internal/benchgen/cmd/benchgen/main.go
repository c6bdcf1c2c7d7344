// Command benchgen writes a synthetic Go benchmark suite to standard
// output (see package benchgen), such as the 10,000-benchmark input behind
// perfbot's cost measurements:
//
//	go run ./internal/benchgen/cmd/benchgen -n 10000 -count 10 > base.txt
//	go run ./internal/benchgen/cmd/benchgen -n 10000 -count 10 -candidate -seed 2 > cand.txt
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/perfbot/perfbot/internal/benchgen"
)

func main() {
	var o benchgen.Options
	flag.IntVar(&o.Benchmarks, "n", 10000, "distinct benchmarks")
	flag.IntVar(&o.Count, "count", 10, "samples (lines) per benchmark")
	flag.BoolVar(&o.Candidate, "candidate", false, "write the patched side: every other benchmark 3% faster")
	flag.Uint64Var(&o.Seed, "seed", 1, "seed of the noise")
	flag.IntVar(&o.Packages, "packages", 20, "pkg: blocks to spread the benchmarks over")
	flag.Parse()
	if err := benchgen.Write(os.Stdout, o); err != nil {
		fmt.Fprintln(os.Stderr, "benchgen:", err)
		os.Exit(1)
	}
}
