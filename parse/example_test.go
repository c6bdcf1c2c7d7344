package parse_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/parse"
)

// Reader detects the format and streams the results; JSONLine renders them
// as `perfbot parse` prints them.
func ExampleReader() {
	in := `Benchmark                 (numTasks)   Mode  Cnt    Score     Error  Units
TaskStoreBenchmarks.run        10000  thrpt    5  572.761 ± 168.865  ops/s
TaskStoreBenchmarks.run:·gc.alloc.rate.norm  10000  thrpt  5  ≈ 10⁻⁵  B/op
`
	ctx := parse.WithWarnings(context.Background(), func(w *parse.SyntaxError) {
		fmt.Println("warning:", w)
	})
	err := parse.Reader(ctx, strings.NewReader(in), "jmh.txt", "auto", func(r *bench.Result) error {
		line, err := parse.JSONLine(r)
		fmt.Println(string(line))
		return err
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	// Output:
	// {"benchmark":"TaskStoreBenchmarks.run","params":{"numTasks":"10000","mode":"thrpt"},"unit":"ops/s","better":"higher","summary":{"mean":572.761,"error":168.865,"confidence":0.999,"n":5},"source":"jmh.txt:2"}
	// warning: jmh.txt:3: TaskStoreBenchmarks.run:·gc.alloc.rate.norm: score printed only approximately (B/op); read as 1e-05
	// {"benchmark":"TaskStoreBenchmarks.run","params":{"numTasks":"10000","mode":"thrpt"},"metric":"gc.alloc.rate.norm","unit":"B/op","better":"lower","summary":{"mean":0.00001,"error":0,"confidence":0,"n":5},"source":"jmh.txt:3"}
}

// Detect picks a parser from the first bytes of an input.
func ExampleDetect() {
	for _, head := range []string{
		"[OVERALL], RunTime(ms), 7661\n[OVERALL], Throughput(ops/sec), 13053.12\n",
		" Performance counter stats for './app':\n\n  1,234 context-switches\n",
		"tps = 754.431143 (without initial connection time)\n",
	} {
		p, err := parse.Detect([]byte(head))
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(p.Name())
	}
	// Output:
	// ycsb
	// perf-stat
	// pgbench
}
