package parse

import (
	"errors"
	"strings"
	"testing"
)

// TestBadInput checks that malformed or truncated input ends in a
// *SyntaxError naming the file and line and saying what was expected, or,
// for a row the rest of the input does not depend on, a warning and no
// result for that row (never a zero in its place).
func TestBadInput(t *testing.T) {
	tests := []struct {
		name    string
		p       Parser
		in      string
		errLine int    // line of the expected *SyntaxError, 0 for none
		errMsg  string // part of its message
		warn    string // part of an expected warning
		results int
	}{
		{"jmh json truncated", JMHJSON{}, "[\n  {\n    \"benchmark\" : \"a.B.c\",\n    \"mode\" : \"thrpt\",\n", 2, "truncated", "", 0},
		{"jmh json bad value", JMHJSON{}, "[\n{\"benchmark\":\"a\",\"mode\":\"thrpt\",\"primaryMetric\":{\"score\":tru,\"scoreUnit\":\"ops/s\"}}\n]", 2, "JMH record", "", 0},
		{"jmh json NaN raw values dropped", JMHJSON{}, `[{"benchmark":"a","mode":"avgt","primaryMetric":{"score":"NaN","scoreError":"NaN","scoreUnit":"ns/op","rawData":[["NaN",2.0]]},"secondaryMetrics":{}}]`, 0, "", "NaN or infinite; dropped", 1},
		{"jmh csv bad score", JMHCSV{}, "\"Benchmark\",\"Mode\",\"Threads\",\"Samples\",\"Score\",\"Score Error (99.9%)\",\"Unit\"\n\"a\",\"thrpt\",1,5,\"abc\",\"1.0\",\"ops/s\"\n", 2, "Score: expected a number", "", 0},
		{"jmh csv no header", JMHCSV{}, "\"a\",\"thrpt\",1,5,\"1.0\",\"1.0\",\"ops/s\"\n", 1, "expected the JMH CSV header", "", 0},
		{"jmh text NaN score", JMHText{}, "Benchmark  Mode  Cnt  Score  Error  Units\na.b  thrpt  5  NaN  ---\n", 0, "", "score is NaN", 0},
		{"jmh text wrong param count", JMHText{}, "Benchmark  (n)  Mode  Cnt  Score  Error  Units\na.b  1  2  thrpt  5  1.0 ± 0.1  ops/s\n", 0, "", "parameter values", 0},
		{"jmh log truncated iteration", JMHLog{}, "# Benchmark: a.B.c\nIteration   1: ", 0, "", "no complete measurement iteration", 0},
		{"ycsb NaN value", YCSB{}, "[OVERALL], RunTime(ms), 10\n[READ], AverageLatency(us), NaN\n", 0, "", "not a finite number", 1},
		{"go-ycsb bad value", GoYCSB{}, "READ - Takes(s): 10.0, Count: x, OPS: 1.0\n", 1, "Count: expected a number", "", 0},
		{"hbase pe bad timings", HBasePE{}, "[RandomReadTest] Summary of timings (ms): [1, x]\n", 1, "expected a number", "", 0},
		{"perf stat not counted", PerfStat{}, " Performance counter stats for 'x':\n\n     <not counted>      cycles\n       1,000      instructions\n", 0, "", "<not counted>", 1},
		{"perf stat csv not supported", PerfStatCSV{}, "<not supported>,,cycles,0,100.00,,\n12,,instructions,100,100.00,,\n", 0, "", "<not supported>", 1},
		{"redis bad rps", RedisBenchmark{}, "SET: 1.2.3 requests per second\n", 1, "expected a number", "", 0},
		{"pgbench bad tps", PGBench{}, "transaction type: <builtin: TPC-B (sort of)>\ntps = 1.2.3 (without initial connection time)\n", 2, "tps", "", 0},
		{"pgbench truncated report", PGBench{}, "transaction type: <builtin: TPC-B (sort of)>\nnumber of clients: 1\nlatency average = 1.0 ms\n", 0, "", "no tps line", 1},
		{"hyperfine truncated", Hyperfine{}, "{\n  \"results\": [\n    {\n      \"command\": \"sleep 1\",\n", 3, "truncated", "", 0},
		{"hyperfine wrong type", Hyperfine{}, `{"results":[{"command":"x","times":"fast"}]}`, 1, "hyperfine result", "", 0},
		{"gbench json truncated", GBenchJSON{}, "{\n \"benchmarks\": [\n  {\"name\": \"BM_a\",\n", 3, "truncated", "", 0},
		{"gbench json error_occurred", GBenchJSON{}, `{"benchmarks":[{"name":"BM_a","run_type":"iteration","error_occurred":true,"error_message":"boom","real_time":0,"cpu_time":0,"time_unit":"ns"}]}`, 0, "", "boom", 0},
		{"criterion json truncated", CriterionJSON{}, `{"reason":"benchmark-complete","id":"a","unit":"ns","mean":{"estimate":1.0,`, 1, "truncated", "", 0},
		{"criterion bad interval", Criterion{}, "fib  time:   [1.0 ns 2.0 us 3.0 ns]\n", 0, "", "expected", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs, warns, err := parseString(t, tt.p, tt.in)
			if tt.errLine > 0 {
				var se *SyntaxError
				if !errors.As(err, &se) {
					t.Fatalf("err = %v, want a *SyntaxError", err)
				}
				if se.File != "in.txt" || se.Line != tt.errLine || !strings.Contains(se.Msg, tt.errMsg) {
					t.Errorf("err = %v, want in.txt:%d: ...%s...", se, tt.errLine, tt.errMsg)
				}
			} else if err != nil {
				t.Fatalf("err = %v, want none", err)
			}
			if tt.warn != "" {
				found := false
				for _, w := range warns {
					found = found || strings.Contains(w, tt.warn) && strings.HasPrefix(w, "in.txt:")
				}
				if !found {
					t.Errorf("warnings %q, want one containing %q", warns, tt.warn)
				}
			}
			if len(rs) != tt.results {
				t.Errorf("%d results, want %d", len(rs), tt.results)
			}
			for _, r := range rs {
				if r.Summary != nil && r.Summary.Mean == 0 || len(r.Samples) > 0 && r.Samples[0] == 0 {
					t.Errorf("result %s holds a zero", r.Source)
				}
			}
		})
	}
}

func TestJSONLimits(t *testing.T) {
	deep := strings.Repeat("[", maxJSONDepth+10)
	_, _, err := parseString(t, JMHJSON{}, deep)
	var se *SyntaxError
	if !errors.As(err, &se) || !strings.Contains(se.Msg, "nested deeper") {
		t.Errorf("deep nesting: err = %v", err)
	}
	if testing.Short() {
		return
	}
	big := `[{"benchmark":"a","mode":"thrpt","params":{"p":"` + strings.Repeat("x", maxRecordSize) + `"}}]`
	_, _, err = parseString(t, JMHJSON{}, big)
	if !errors.As(err, &se) || !strings.Contains(se.Msg, "longer than") || se.Line != 1 {
		t.Errorf("huge record: err = %v", err)
	}
}
