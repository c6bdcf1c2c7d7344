package parse

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/perfbot/perfbot/bench"
)

// benchInput builds a realistic input of about 1 MiB for a format: its
// real fixtures, repeated. Line formats repeat the concatenated fixtures;
// JSON formats repeat their records inside one document (jmh-json,
// gbench-json) or as a stream of documents (hyperfine, criterion-json).
func benchInput(b *testing.B, format string) []byte {
	b.Helper()
	var one bytes.Buffer
	for _, f := range fixtures(b) {
		if wantFormat(f) != format {
			continue
		}
		data, err := os.ReadFile(filepath.Join("testdata", f))
		if err != nil {
			b.Fatal(err)
		}
		switch format {
		case "jmh-json", "gbench-json", "hyperfine", "criterion-json":
			if !bytes.Contains(f2s(f), []byte("caffeine")) && !bytes.Contains(f2s(f), []byte("fib-context")) &&
				!bytes.Contains(f2s(f), []byte("hyperfine")) && !bytes.Contains(f2s(f), []byte("cargo-criterion")) {
				continue // fragments: not valid documents
			}
		}
		one.Write(data)
		one.WriteByte('\n')
	}
	if one.Len() == 0 {
		b.Fatalf("no fixtures for %s", format)
	}
	switch format {
	case "jmh-json":
		// Repeat the complete first record of the array.
		rec := one.Bytes()
		start := bytes.IndexByte(rec, '{')
		end := bytes.Index(rec, []byte("\n    },\n"))
		elem := rec[start : end+6]
		var out bytes.Buffer
		out.WriteString("[\n")
		for out.Len() < 1<<20 {
			out.Write(elem)
			out.WriteString(",\n")
		}
		out.Write(elem)
		out.WriteString("\n]\n")
		return out.Bytes()
	case "gbench-json":
		var out bytes.Buffer
		out.WriteString(`{"context":{"date":"2019-11-29 21:26:59","num_cpus":4},"benchmarks":[`)
		elem := `{"name":"fib_10","run_name":"fib_10","run_type":"iteration","repetitions":0,"repetition_index":0,"threads":1,"iterations":3070566,"real_time":2.1498980114547953e+02,"cpu_time":2.1365507206163295e+02,"time_unit":"ns"}`
		for out.Len() < 1<<20 {
			out.WriteString(elem + ",\n")
		}
		out.WriteString(elem + "]}\n")
		return out.Bytes()
	}
	return bytes.Repeat(one.Bytes(), 1<<20/one.Len()+1)
}

func f2s(s string) []byte { return []byte(s) }

func benchParse(b *testing.B, p Parser) {
	in := benchInput(b, p.Name())
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		n := 0
		err := p.Parse(context.Background(), bytes.NewReader(in), "bench", func(*bench.Result) error { n++; return nil })
		if err != nil {
			b.Fatal(err)
		}
		if n == 0 {
			b.Fatal("no results")
		}
	}
}

func BenchmarkParseJMHText(b *testing.B)        { benchParse(b, JMHText{}) }
func BenchmarkParseJMHLog(b *testing.B)         { benchParse(b, JMHLog{}) }
func BenchmarkParseJMHJSON(b *testing.B)        { benchParse(b, JMHJSON{}) }
func BenchmarkParseJMHCSV(b *testing.B)         { benchParse(b, JMHCSV{}) }
func BenchmarkParseYCSB(b *testing.B)           { benchParse(b, YCSB{}) }
func BenchmarkParseGoYCSB(b *testing.B)         { benchParse(b, GoYCSB{}) }
func BenchmarkParseHBasePE(b *testing.B)        { benchParse(b, HBasePE{}) }
func BenchmarkParseHBaseWAL(b *testing.B)       { benchParse(b, HBaseWAL{}) }
func BenchmarkParsePerfStat(b *testing.B)       { benchParse(b, PerfStat{}) }
func BenchmarkParsePerfStatCSV(b *testing.B)    { benchParse(b, PerfStatCSV{}) }
func BenchmarkParseRedisBenchmark(b *testing.B) { benchParse(b, RedisBenchmark{}) }
func BenchmarkParsePGBench(b *testing.B)        { benchParse(b, PGBench{}) }
func BenchmarkParseHyperfine(b *testing.B)      { benchParse(b, Hyperfine{}) }
func BenchmarkParseGBenchJSON(b *testing.B)     { benchParse(b, GBenchJSON{}) }
func BenchmarkParseGBench(b *testing.B)         { benchParse(b, GBench{}) }
func BenchmarkParseCriterion(b *testing.B)      { benchParse(b, Criterion{}) }
func BenchmarkParseCriterionJSON(b *testing.B)  { benchParse(b, CriterionJSON{}) }
func BenchmarkParseGoBench(b *testing.B)        { benchParse(b, GoBench{}) }
