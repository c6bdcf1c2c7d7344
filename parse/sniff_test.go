package parse

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// plainSniffs score a head as the Sniff methods did before they checked
// literals ahead of their expressions: running every expression over the
// whole head. The checks only spare work, so the scores must agree.
var plainSniffs = map[string]func(head []byte) int{
	"gbench": func(head []byte) int {
		switch {
		case gbHeader().Match(head):
			return 90
		case gbRunOn().Match(head) || gbUnits().Match(head):
			return 70
		case gbCmpRow().Match(head):
			return 30
		}
		return 0
	},
	"jmh": func(head []byte) int {
		switch {
		case jmhHeader().Match(head):
			return 90
		case jmhHeaderStart().Match(head):
			return 80
		}
		return 0
	},
	"ycsb": func(head []byte) int {
		switch {
		case bytes.Contains(head, []byte("[OVERALL],")):
			return 95
		case ycsbSniff().Match(head):
			return 70
		case ycsbStatus().Match(head):
			return 40
		}
		return 0
	},
	"pgbench": func(head []byte) int {
		if pgSniff().Match(head) && (bytes.Contains(head, []byte("number of clients")) || bytes.Contains(head, []byte("tps = "))) {
			return 95
		}
		if pgSniff().Match(head) {
			return 60
		}
		return 0
	},
	"redis-benchmark": func(head []byte) int {
		if redisSniff().Match(head) {
			if bytes.Contains(head, []byte("redis-benchmark")) || bytes.Contains(head, []byte("requests per second")) {
				return 95
			}
			return 70
		}
		return 0
	},
	"perf-stat": func(head []byte) int {
		switch {
		case bytes.Contains(head, []byte("Performance counter stats for")):
			return 100
		case perfSniffI().Match(head):
			return 80
		}
		return 0
	},
}

// sniffHeads are heads near the edges of the literal checks.
var sniffHeads = []string{
	"Benchmark   Time   CPU   Iterations\n",
	"Benchmark\tTime(ns)\tCPU(ns)\tIterations UserCounters\n",
	"Run on (8 X 2400.5 MHz CPU s)\n",
	"BM_x 12.5 ns 12.4 ns 1000\n",
	"BM_x 12.5 s\t12.4 ms\n1000\n",
	"BM_x .5 us  .4 us 7",
	"BM_x 12.5 s 12.4 s 1000\n",
	"BM_x\t3 ms\t3 ms\t9\n",
	"BM_x\t-0.0123\t+0.0100\t",
	"BM_x\n+1.0000\f-2.0000\r",
	"Benchmark Mode Cnt Score Error Units\n",
	"Benchmark   Mode  Samples   Mean   Mean error  Units\n",
	"[info] Benchmark  Mode  Cnt  Score\n",
	"Benchmark\tMode\tCnt\tScore\tError\tUnits\n",
	" * Benchmark Mode\nSamples\n",
	"[READ], Operations, 100\n",
	"  [INSERT],AverageLatency(us), 3.5\n",
	"2024-01-02 03:04:05:678 10 sec: 1000 operations; 100 current ops/sec\n",
	"transaction type: <builtin: TPC-B>\n",
	"tps = 123.4 (without initial connection time)\n",
	"pgbench (16.1)\nnumber of clients: 4\n",
	"====== SET ======\n",
	"\"test\",\"rps\"\n",
	"\"SET\",\"12345.67\"\n",
	"\"LPUSH (needed to benchmark LPOP)\",\"1.5\"\r\n",
	"SET: 12345.67 requests per second\n",
	"     1.001   1,234.5 msec task-clock\n",
	"  2.0 12 cycles\n",
	"1.0 5 instructions\n1.0 3 msec cpu-clock\n",
	"1.5 2 context-switches\n",
	"1.0 2 page-faults\n",
	"1.0 1 cpu-migrations\n",
	"[READ],Operations,1\n",
	"BenchmarkCycles-2 1000 12 ns/op\n",
}

func TestSniffLiteralChecks(t *testing.T) {
	heads := map[string][]byte{}
	for i, h := range sniffHeads {
		heads[fmt.Sprintf("sniffHeads[%d]", i)] = []byte(h)
	}
	for _, f := range fixtures(t) {
		data, err := os.ReadFile(filepath.Join("testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		heads[f] = data[:min(len(data), sniffSize)]
	}
	for name, head := range heads {
		for _, p := range Formats() {
			plain, ok := plainSniffs[p.Name()]
			if !ok {
				continue
			}
			if got, want := p.Sniff(head), plain(head); got != want {
				t.Errorf("%s: %s.Sniff = %d, the plain expressions score %d", name, p.Name(), got, want)
			}
		}
	}
}

// FuzzSniffLiteralChecks checks on any head that the literal checks never
// change a score.
func FuzzSniffLiteralChecks(f *testing.F) {
	for _, h := range sniffHeads {
		f.Add([]byte(h))
	}
	f.Fuzz(func(t *testing.T, head []byte) {
		for _, p := range Formats() {
			if plain, ok := plainSniffs[p.Name()]; ok {
				if got, want := p.Sniff(head), plain(head); got != want {
					t.Fatalf("%s.Sniff(%q) = %d, the plain expressions score %d", p.Name(), head, got, want)
				}
			}
		}
	})
}

func TestIsFiniteAgreesWithParseFloat(t *testing.T) {
	for _, s := range []string{"", " ", "1", " 12.5 ", "-3", "+4", ".5", "5.", "1e9", "1E-9", "0x1p-2", "0x_1p0", "1_000",
		"inf", "+Inf", "-infinity", "NaN", "nan", "1e400", "-1e400", "abc", "12 ns/op", "<not counted>", "1,234", "\t7\n", "-", "+", "."} {
		_, err := parseFloat(s)
		if got, want := isFinite(s), err == nil; got != want {
			t.Errorf("isFinite(%q) = %v, parseFloat's error is %v", s, got, err)
		}
	}
}
