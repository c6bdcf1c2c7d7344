package parse

import (
	"testing"

	"github.com/perfbot/perfbot/bench"
)

// TestQuirks feeds each parser the shapes the real fixtures lack but the
// tools are known to print (see testdata/PROVENANCE-fixtures.md).
func TestQuirks(t *testing.T) {
	type want struct {
		bench, metric, unit string
		params              string
		v                   float64
		better              bench.Direction
	}
	tests := []struct {
		name    string
		p       Parser
		in      string
		want    []want
		results int // -1: do not check
		warns   int
	}{
		{
			name: "jmh @ prefix, approximate score, mangled ±, no-prefix 1.37 metric",
			p:    JMHText{},
			in: "Benchmark            Mode  Cnt   Score   Error  Units\n" +
				"a.B.m                thrpt    5  14014,765 Â± 124,690  ops/s\n" +
				"a.B.m:@gc.alloc.rate thrpt    5  1.5 \uFFFD 0.1  MB/sec\n" +
				"a.B.m:gc.alloc.rate.norm  thrpt  5  ≈ 10⁻⁵  B/op\n" +
				"a.B.m:p0.99          sample      3.5   ms/op\n" +
				"[INFO] BUILD SUCCESS\n" +
				"a.B.x                thrpt    5  1.0 ± 0.1  ops/s\n",
			want: []want{
				{"a.B.m", "", "ops/s", "mode=thrpt", 14014.765, bench.HigherIsBetter},
				{"a.B.m", "gc.alloc.rate", "MB/sec", "mode=thrpt", 1.5, bench.LowerIsBetter},
				{"a.B.m", "p99", "ms/op", "mode=sample", 3.5, bench.LowerIsBetter},
				{"a.B.m", "gc.alloc.rate.norm", "B/op", "mode=thrpt", 1e-5, bench.LowerIsBetter},
				{"a.B.x", "", "ops/s", "mode=thrpt", 1, bench.HigherIsBetter},
			},
			results: 5, warns: 1,
		},
		{
			name: "jmh before 1.5: Samples and Mean error columns, ≈ 0",
			p:    JMHText{},
			in: "Benchmark       Mode   Samples         Mean   Mean error    Units\n" +
				"o.s.MyBench.a   thrpt        20   123456.789     1234.567   ops/ms\n" +
				"o.s.MyBench.b   avgt         20        ≈ 0                   ns/op\n",
			want: []want{
				{"o.s.MyBench.a", "", "ops/ms", "mode=thrpt", 123456.789, bench.HigherIsBetter},
				{"o.s.MyBench.b", "", "ns/op", "mode=avgt", 0, bench.LowerIsBetter},
			},
			results: 2, warns: 1,
		},
		{
			name: "jmh log with gc profiler lines and forks",
			p:    JMHLog{},
			in: "# Benchmark mode: Average time, time/op\n# Benchmark: a.B.m\n# Parameters: (size = 10)\n\n# Fork: 1 of 2\n" +
				"# Warmup Iteration   1: 9.000 ns/op\nIteration   1: 10.000 ns/op\n                 ·gc.alloc.rate:      948.886 MB/sec\n" +
				"Iteration   2: 11,000 ns/op\n                 ·gc.alloc.rate:      950.000 MB/sec\n\n# Fork: 2 of 2\nIteration   1: 12.000 ns/op\n" +
				"                 ·gc.alloc.rate:      ≈ 10⁻⁴ MB/sec\n\nResult \"a.B.m\":\n  11.000 ±(99.9%) 1.0 ns/op [Average]\n",
			want: []want{
				{"a.B.m", "", "ns/op", "size=10/mode=avgt", 10, bench.LowerIsBetter},
				{"a.B.m", "gc.alloc.rate", "MB/sec", "size=10/mode=avgt", 948.886, bench.LowerIsBetter},
			},
			results: 2, warns: 1,
		},
		{
			name: "ycsb READ-FAILED, status line, histogram buckets",
			p:    YCSB{},
			in: "2017-05-20 18:55:44:512 10 sec: 376385 operations; 37634.74 current ops/sec; [READ: Count=188431, Avg=548.39]\n" +
				"Command line: -db site.ycsb.BasicDB -P workloads/workloadb -threads 100 -target 20000 -t -s\n" +
				"[OVERALL], RunTime(ms), 10110\n[READ-FAILED], Operations, 7\n[READ-FAILED], AverageLatency(us), 12.5\n[READ], 0, 464\n[READ], >1000, 0\n[READ], Return=ERROR, 7\n",
			want: []want{
				{"READ-FAILED", "AverageLatency", "us", "workload=workloadb/threads=100/target=20000", 12.5, bench.LowerIsBetter},
				{"READ", "Return=ERROR", "count", "workload=workloadb/threads=100/target=20000", 7, bench.LowerIsBetter},
				{"OVERALL", "RunTime", "ms", "workload=workloadb/threads=100/target=20000", 10110, bench.LowerIsBetter},
			},
			results: 4,
		},
		{
			name: "hbase 2.x latency line and summary",
			p:    HBasePE{},
			in: "2019-01-01 00:00:00,000 INFO  [TestClient-0] hbase.PerformanceEvaluation: Latency (us) : mean=21.14, min=2.00, max=90000.00, stdDev=150.10, 50th=10.00, 75th=12.00, 95th=30.00, 99th=100.00, 99.9th=2000.00, 99.99th=9000.00, 99.999th=50000.00\n" +
				"2019-01-01 00:00:00,000 INFO  [TestClient-0] hbase.PerformanceEvaluation: Num measures (latency) : 1048576\n" +
				"2019-01-01 00:00:00,000 INFO  [TestClient-0] hbase.PerformanceEvaluation: Finished class org.apache.hadoop.hbase.PerformanceEvaluation$RandomWriteTest in 42448ms at offset 0 for 1048576 rows (48.62 MB/s)\n" +
				"2019-01-01 00:00:00,000 INFO  [main] hbase.PerformanceEvaluation: [RandomWriteTest] Summary of timings (ms): [42448]\n" +
				"2019-01-01 00:00:00,000 INFO  [main] hbase.PerformanceEvaluation: [RandomWriteTest duration ]\tMin: 42448ms\tMax: 42448ms\tAvg: 42448ms\n" +
				"2019-01-01 00:00:00,000 INFO  [main] hbase.PerformanceEvaluation: [ Avg latency (us)]\t21\n" +
				"2019-01-01 00:00:00,000 INFO  [main] hbase.PerformanceEvaluation: [ Avg TPS/QPS]\t49405\t row per second\n",
			want: []want{
				{"RandomWriteTest", "p99.9", "us", "client=TestClient-0", 2000, bench.LowerIsBetter},
				{"RandomWriteTest", "Rate", "MB/s", "client=TestClient-0", 48.62, bench.HigherIsBetter},
				{"RandomWriteTest", "Throughput", "rows/s", "", 49405, bench.HigherIsBetter},
				{"RandomWriteTest", "Time", "ms", "", 42448, bench.LowerIsBetter},
			},
			results: 11 + 1 + 1 + 2,
		},
		{
			name: "hbase wal older HLog summary in ms",
			p:    HBaseWAL{},
			in:   "13/01/01 INFO wal.HLogPerformanceEvaluation: Summary: threads=5, iterations=1000 took 1234.000ms 4051.864ops/s\n",
			want: []want{
				{"WALPerformanceEvaluation", "Time", "ms", "threads=5/iterations=1000", 1234, bench.LowerIsBetter},
			},
			results: 2,
		},
		{
			name: "hbase wal yammer 2.x reporter and a decimal comma",
			p:    HBaseWAL{},
			in: "11/30/26 9:00:00 AM =============================================================\n" +
				"org.apache.hadoop.hbase.regionserver.wal.HLogPerformanceEvaluation:\n" +
				"  syncMeter:\n             count = 51234\n         mean rate = 1706.87 syncs/s\n     1-minute rate = 1699.12 syncs/s\n\n" +
				"  latencyHistogram:\n               min = 2130.00\n               max = 9912345.00\n              mean = 40213.37\n            median = 30122.00\n              99% <= 210000.00\n\n" +
				"13/01/01 INFO wal.HLogPerformanceEvaluation: Summary: threads=5, iterations=1000, syncInterval=0 took 12,345s 405,186ops/s\n",
			want: []want{
				{"syncMeter", "rate", "events/s", "threads=5/iterations=1000/syncInterval=0", 1706.87, bench.HigherIsBetter},
				{"latencyHistogram", "p99", "ns", "threads=5/iterations=1000/syncInterval=0", 210000, bench.LowerIsBetter},
				{"WALPerformanceEvaluation", "Time", "s", "threads=5/iterations=1000/syncInterval=0", 12.345, bench.LowerIsBetter},
			},
			results: 2 + 1 + 5,
		},
		{
			name: "perf stat hybrid cores, energy in Joules",
			p:    PerfStat{},
			in: " Performance counter stats for 'system wide':\n\n" +
				"     1,234,567      cpu_core/cycles/                 #    1.2 GHz                         (99.80%)\n" +
				"     <not counted>      cpu_atom/cycles/                                                        (0.00%)\n" +
				"             12.34 Joules power/energy-pkg/\n",
			want: []want{
				{"cpu_core/cycles/", "", "cycles", "", 1234567, bench.LowerIsBetter},
				{"power/energy-pkg/", "", "Joules", "", 12.34, bench.LowerIsBetter},
			},
			results: 2, warns: 1,
		},
		{
			name: "perf stat -r with +- and not counted, old multiplex brackets",
			p:    PerfStat{},
			in: " Performance counter stats for './a' (5 runs):\n\n" +
				"          1.234567 task-clock                #    0.716 CPUs utilized            ( +-  1.38% )\n" +
				"     <not counted>      cache-misses\n" +
				"         2,000,000 cycles                    #    1.621 GHz                      ( +-  0.50% ) [83.43%]\n" +
				"         3,000,000 instructions              #    1.50  insns per cycle          ( +-  0.20% )\n\n" +
				"       0.002961 +- 0.000127 seconds time elapsed  ( +-  4.29% )\n",
			want: []want{
				{"task-clock", "", "msec", "", 1.234567, bench.LowerIsBetter},
				{"cycles", "", "cycles", "", 2e6, bench.LowerIsBetter},
				{"instructions", "IPC", "insn per cycle", "", 1.5, bench.HigherIsBetter},
				{"time elapsed", "", "s", "", 0.002961, bench.LowerIsBetter},
			},
			results: 5, warns: 1,
		},
		{
			name: "perf stat -x, with -r variance and not supported",
			p:    PerfStatCSV{},
			in:   "# started on Mon Apr 14 12:53:58 2025\n\n1234.56,msec,task-clock,1234560000,100.00,0.999,CPUs utilized\n<not supported>,,stalled-cycles-backend,0.00%,0,100.00,,\n2000000,,cycles,19.25%,1234560000,100.00,1.62,GHz\n",
			want: []want{
				{"task-clock", "", "msec", "", 1234.56, bench.LowerIsBetter},
				{"cycles", "", "cycles", "", 2e6, bench.LowerIsBetter},
			},
			results: 2, warns: 1,
		},
		{
			name: "redis 6.2 summary block and csv header",
			p:    RedisBenchmark{},
			in: "====== GET ======                                                   \n  100000 requests completed in 0.86 seconds\n  50 parallel clients\n  3 bytes payload\n  keep alive: 1\n  multi-thread: no\n\n" +
				"Summary:\n  throughput summary: 116144.02 requests per second\n  latency summary (msec):\n          avg       min       p50       p95       p99       max\n        0.243     0.088     0.231     0.343     0.471     1.031\n" +
				"\"test\",\"rps\",\"avg_latency_ms\",\"min_latency_ms\",\"p50_latency_ms\",\"p95_latency_ms\",\"p99_latency_ms\",\"max_latency_ms\"\n\"SET\",\"150000.00\",\"0.200\",\"0.100\",\"0.190\",\"0.300\",\"0.400\",\"0.900\"\n",
			want: []want{
				{"GET", "", "QPS", "clients=50/payload=3", 116144.02, bench.HigherIsBetter},
				{"GET", "p99", "ms", "clients=50/payload=3", 0.471, bench.LowerIsBetter},
				{"SET", "AverageLatency", "ms", "", 0.2, bench.LowerIsBetter},
			},
			results: 7 + 7,
		},
		{
			name: "pgbench 9.6-13 two tps lines",
			p:    PGBench{},
			in: "transaction type: <builtin: select only>\nscaling factor: 50\nquery mode: prepared\nnumber of clients: 8\nnumber of threads: 4\nduration: 60 s\n" +
				"number of transactions actually processed: 1200000\nlatency average = 0.400 ms\ntps = 19990.1 (including connections establishing)\ntps = 20000.5 (excluding connections establishing)\n",
			want: []want{
				{"select only", "", "tps", "scale=50/clients=8/threads=4", 20000.5, bench.HigherIsBetter},
				{"select only", "tps-including-connections", "tps", "scale=50/clients=8/threads=4", 19990.1, bench.HigherIsBetter},
				{"select only", "AverageLatency", "ms", "scale=50/clients=8/threads=4", 0.4, bench.LowerIsBetter},
			},
			results: 3,
		},
		{
			name: "hyperfine parameters, null stddev, exit codes",
			p:    Hyperfine{},
			in:   `{"results":[{"command":"sleep 0.1","mean":0.1,"stddev":null,"median":0.1,"user":0,"system":0,"min":0.1,"max":0.1,"times":[0.1],"exit_codes":[0],"parameters":{"n":"1","mode":"fast"}},{"command":"sleep 0.2","mean":0.2,"stddev":0.01,"median":0.2,"user":0,"system":0,"min":0.19,"max":0.21,"parameters":{"n":"2","mode":"fast"}}]}`,
			want: []want{
				{"sleep 0.1", "", "s", "n=1/mode=fast", 0.1, bench.LowerIsBetter},
				{"sleep 0.2", "", "s", "n=2/mode=fast", 0.2, bench.LowerIsBetter},
			},
			results: 2,
		},
		{
			name: "gbench json counters, aggregates and errors",
			p:    GBenchJSON{},
			in: `{"context":{"date":"2024-01-01T00:00:00+00:00","library_version":"v1.8.3","json_schema_version":1},"benchmarks":[` +
				`{"name":"BM_x/64/real_time","family_index":0,"run_name":"BM_x/64/real_time","run_type":"iteration","repetitions":2,"repetition_index":0,"threads":1,"iterations":10,"real_time":5.0e+01,"cpu_time":4.0e+01,"time_unit":"us","bytes_per_second":1.0e+09,"items_per_second":2.0e+06,"allocs_per_iter":3},` +
				`{"name":"BM_x/64/real_time_mean","run_name":"BM_x/64/real_time","run_type":"aggregate","aggregate_name":"mean","aggregate_unit":"time","real_time":5.0e+01,"cpu_time":4.0e+01,"time_unit":"us"},` +
				`{"name":"BM_y","run_name":"BM_y","run_type":"iteration","error_occurred":true,"error_message":"boom","real_time":0,"cpu_time":0,"time_unit":"ns"}]}`,
			want: []want{
				{"BM_x/real_time", "real_time", "us", "arg0=64", 50, bench.LowerIsBetter},
				{"BM_x/real_time", "bytes_per_second", "B/s", "arg0=64", 1e9, bench.HigherIsBetter},
				{"BM_x/real_time", "allocs_per_iter", "count", "arg0=64", 3, bench.LowerIsBetter},
			},
			results: 5, warns: 1,
		},
		{
			name: "gbench console aggregates skipped, Gi counters",
			p:    GBench{},
			in: "--------------------------------------------------------------\nBenchmark                    Time             CPU   Iterations UserCounters...\n--------------------------------------------------------------\n" +
				"BM_x/8/repeats:2          10.0 ns         9.00 ns     70000000 bytes_per_second=1Gi/s\nBM_x/8/repeats:2_mean     10.0 ns         9.00 ns            2 bytes_per_second=1Gi/s\nBM_x/8/repeats:2_cv       1.00 %          1.00 %             2 bytes_per_second=1.00%\n",
			want: []want{
				{"BM_x", "cpu_time", "ns", "arg0=8/repeats=2", 9, bench.LowerIsBetter},
				{"BM_x", "bytes_per_second", "B/s", "arg0=8/repeats=2", 1 << 30, bench.HigherIsBetter},
			},
			results: 3,
		},
		{
			name: "gbench tabular counters",
			p:    GBench{},
			in: "Benchmark                   Time             CPU   Iterations  CPUTime,s Pixels/CPUTime\n" +
				"raw/GOPR.GPR/real_time   10.5 ms         10.4 ms           66     0.0104        1.2G/s\n",
			want: []want{
				{"raw/GOPR.GPR/real_time", "real_time", "ms", "", 10.5, bench.LowerIsBetter},
				{"raw/GOPR.GPR/real_time", "Pixels/CPUTime", "1/s", "", 1.2e9, bench.HigherIsBetter},
				{"raw/GOPR.GPR/real_time", "CPUTime,s", "count", "", 0.0104, bench.LowerIsBetter},
			},
			results: 4,
		},
		{
			name: "criterion 0.3.3+ estimates with null slope",
			p:    CriterionJSON{},
			in:   `{"mean":{"confidence_interval":{"confidence_level":0.95,"lower_bound":10.0,"upper_bound":12.0},"point_estimate":11.0,"standard_error":0.5},"median":{"confidence_interval":{"confidence_level":0.95,"lower_bound":9.0,"upper_bound":11.0},"point_estimate":10.0,"standard_error":0.5},"median_abs_dev":{"confidence_interval":{"confidence_level":0.95,"lower_bound":0.1,"upper_bound":0.3},"point_estimate":0.2,"standard_error":0.05},"slope":null,"std_dev":{"confidence_interval":{"confidence_level":0.95,"lower_bound":1.0,"upper_bound":2.0},"point_estimate":1.5,"standard_error":0.2}}`,
			want: []want{
				{"in", "", "ns", "", 11, bench.LowerIsBetter},
				{"in", "median", "ns", "", 10, bench.LowerIsBetter},
			},
			results: 2,
		},
		{
			name: "criterion console with us spelled out and a change line",
			p:    Criterion{},
			in:   "fib 20                  time:   [26.029 us 26.251 us 26.505 us]\n                        change: [-2.0565% -0.2521% +1.6377%] (p = 0.79 > 0.05)\n                        No change in performance detected.\ntest plain ... bench:       1,234 ns/iter (+/- 56)\n",
			want: []want{
				{"fib 20", "", "us", "", 26.251, bench.LowerIsBetter},
				{"plain", "", "ns/iter", "", 1234, bench.LowerIsBetter},
			},
			results: 2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.p.Sniff([]byte(tt.in)) == 0 {
				t.Errorf("%s does not recognize its own input", tt.p.Name())
			}
			if d, err := Detect([]byte(tt.in)); err != nil || d.Name() != tt.p.Name() {
				t.Errorf("Detect = %v, %v; want %s", d, err, tt.p.Name())
			}
			rs, warns, err := parseString(t, tt.p, tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if tt.results >= 0 && len(rs) != tt.results {
				for _, r := range rs {
					b, _ := JSONLine(r)
					t.Log(string(b))
				}
				t.Errorf("%d results, want %d", len(rs), tt.results)
			}
			if len(warns) != tt.warns {
				t.Errorf("warnings %q, want %d", warns, tt.warns)
			}
			for _, w := range tt.want {
				found := false
				for _, r := range rs {
					if r.Benchmark != w.bench || r.Metric != w.metric || r.Unit != w.unit || r.Params.String() != w.params {
						continue
					}
					found = true
					v := 0.0
					if len(r.Samples) > 0 {
						v = r.Samples[0]
					} else {
						v = r.Summary.Mean
					}
					if !approxEqual(v, w.v) {
						t.Errorf("%s %s = %v, want %v", w.bench, w.metric, v, w.v)
					}
					if r.Better != w.better {
						t.Errorf("%s %s better = %v, want %v", w.bench, w.metric, r.Better, w.better)
					}
				}
				if !found {
					t.Errorf("no result %q %q %q %q", w.bench, w.metric, w.unit, w.params)
				}
			}
		})
	}
}

func TestJMHJSONSamplePercentilesFallback(t *testing.T) {
	in := `[{"benchmark":"a.B.c","mode":"sample","forks":1,"measurementIterations":2,"primaryMetric":{"score":1.5,"scoreError":0.1,"scorePercentiles":{"0.0":1.0,"50.0":1.4,"99.9":3.0,"100.0":"NaN"},"scoreUnit":"ms/op","rawDataHistogram":[[[[1.0,2],[2.0,2]],[[1.0,1],[3.0,1]]]]},"secondaryMetrics":{}}]`
	rs, warns, err := parseString(t, JMHJSON{}, in)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 4 || len(warns) != 1 {
		t.Fatalf("%d results, warnings %q; want 4 and one warning", len(rs), warns)
	}
	if got := rs[0].Samples; len(got) != 2 || got[0] != 1.5 || got[1] != 2.0 {
		t.Errorf("histogram iteration means = %v, want [1.5 2]", got)
	}
	if r := rs[3]; r.Metric != "p99.9" || r.Summary.Mean != 3.0 || r.Unit != "ms/op" {
		t.Errorf("last percentile = %s %v %s", r.Metric, r.Summary.Mean, r.Unit)
	}
}
