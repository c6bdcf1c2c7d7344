package parse

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/perfbot/perfbot/bench"
)

// fuzzParser seeds f with the fixtures of format and checks that p never
// panics and that every result it emits is valid.
func fuzzParser(f *testing.F, p Parser, format string) {
	for _, name := range fixtures(f) {
		if wantFormat(name) != format {
			continue
		}
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		p.Sniff(data)
		_ = p.Parse(context.Background(), bytes.NewReader(data), "fuzz", func(r *bench.Result) error {
			if err := r.Validate(); err != nil {
				t.Fatalf("invalid result %+v: %v", r, err)
			}
			return nil
		})
	})
}

// FuzzJMHText fuzzes the jmh parser.
func FuzzJMHText(f *testing.F) { fuzzParser(f, JMHText{}, "jmh") }

// FuzzJMHLog fuzzes the jmh-log parser.
func FuzzJMHLog(f *testing.F) { fuzzParser(f, JMHLog{}, "jmh-log") }

// FuzzJMHJSON fuzzes the jmh-json parser.
func FuzzJMHJSON(f *testing.F) { fuzzParser(f, JMHJSON{}, "jmh-json") }

// FuzzJMHCSV fuzzes the jmh-csv parser.
func FuzzJMHCSV(f *testing.F) { fuzzParser(f, JMHCSV{}, "jmh-csv") }

// FuzzYCSB fuzzes the ycsb parser.
func FuzzYCSB(f *testing.F) { fuzzParser(f, YCSB{}, "ycsb") }

// FuzzGoYCSB fuzzes the go-ycsb parser.
func FuzzGoYCSB(f *testing.F) { fuzzParser(f, GoYCSB{}, "go-ycsb") }

// FuzzHBasePE fuzzes the hbase-pe parser.
func FuzzHBasePE(f *testing.F) { fuzzParser(f, HBasePE{}, "hbase-pe") }

// FuzzHBaseWAL fuzzes the hbase-wal parser.
func FuzzHBaseWAL(f *testing.F) { fuzzParser(f, HBaseWAL{}, "hbase-wal") }

// FuzzPerfStat fuzzes the perf-stat parser.
func FuzzPerfStat(f *testing.F) { fuzzParser(f, PerfStat{}, "perf-stat") }

// FuzzPerfStatCSV fuzzes the perf-stat-csv parser.
func FuzzPerfStatCSV(f *testing.F) { fuzzParser(f, PerfStatCSV{}, "perf-stat-csv") }

// FuzzRedisBenchmark fuzzes the redis-benchmark parser.
func FuzzRedisBenchmark(f *testing.F) { fuzzParser(f, RedisBenchmark{}, "redis-benchmark") }

// FuzzPGBench fuzzes the pgbench parser.
func FuzzPGBench(f *testing.F) { fuzzParser(f, PGBench{}, "pgbench") }

// FuzzHyperfine fuzzes the hyperfine parser.
func FuzzHyperfine(f *testing.F) { fuzzParser(f, Hyperfine{}, "hyperfine") }

// FuzzGBenchJSON fuzzes the gbench-json parser.
func FuzzGBenchJSON(f *testing.F) { fuzzParser(f, GBenchJSON{}, "gbench-json") }

// FuzzGBench fuzzes the gbench parser.
func FuzzGBench(f *testing.F) { fuzzParser(f, GBench{}, "gbench") }

// FuzzCriterion fuzzes the criterion parser.
func FuzzCriterion(f *testing.F) { fuzzParser(f, Criterion{}, "criterion") }

// FuzzCriterionJSON fuzzes the criterion-json parser.
func FuzzCriterionJSON(f *testing.F) { fuzzParser(f, CriterionJSON{}, "criterion-json") }

// FuzzGoBench fuzzes the gobench parser.
func FuzzGoBench(f *testing.F) { fuzzParser(f, GoBench{}, "gobench") }

// FuzzCachegrind fuzzes the cachegrind parser.
func FuzzCachegrind(f *testing.F) { fuzzParser(f, Cachegrind{}, "cachegrind") }
