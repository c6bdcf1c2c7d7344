package parse

import (
	"math"
	"testing"

	"github.com/perfbot/perfbot/bench"
)

// TestFixtureValues checks values read by hand from the raw fixtures, so
// the goldens are not trusted blindly.
func TestFixtureValues(t *testing.T) {
	tests := []struct {
		file, bench, params, metric, unit string
		better                            bench.Direction
		want                              float64 // mean, or first sample
		errHalf                           float64 // summary error, or -1 to skip
		n                                 int     // summary N or sample count
	}{
		// "benchmark_0  value0 ... thrpt 14  528,857 ± 278,142  ops/ms"
		{"jmh-text-openjdk-jmh-golden-ru-locale.txt", "benchmark_0", "param0=value0/param1=[value1]/param2={value2}/param3='value3'/param4=\"value4\"/mode=thrpt", "", "ops/ms", bench.HigherIsBetter, 528.857, 278.142, 14},
		// "benchmark_1:secondary1 ... thrpt  953.000  ops/ms" (blank Cnt, no error)
		{"jmh-text-openjdk-jmh-golden-root-locale.txt", "benchmark_1", "param0=value0/param1=[value1]/param2={value2}/param3='value3'/param4=\"value4\"/mode=thrpt", "secondary1", "ops/ms", bench.HigherIsBetter, 953, 0, 1},
		// "ClientPb.createUser:createUser·p0.99  sample  3.858  ms/op"
		{"jmh-text-dkisser-dubbo-awesome-final-table-mixed-modes.txt", "ClientPb.createUser", "mode=sample", "p99", "ms/op", bench.LowerIsBetter, 3.858, 0, 1},
		// "[info] mkVec1_2_b:·gc.alloc.rate  thrpt 200  948.886 ± 1.045  MB/sec"
		{"jmh-text-japgolly-nyaya-sbt-info-gc.txt", "mkVec1_2_b", "mode=thrpt", "gc.alloc.rate", "MB/sec", bench.LowerIsBetter, 948.886, 1.045, 200},
		// " * checkMissing:·gc.count  thrpt  5  313.000  counts"
		{"jmh-text-netflix-spectator-gc-stack-nan.txt", "checkMissing", "mode=thrpt", "gc.count", "counts", bench.LowerIsBetter, 313, 0, 5},
		// "Iteration   1: 12.380 ops/ms" .. 3 iterations
		{"jmh-text-dkisser-dubbo-awesome-iterations-thrpt.txt", "org.apache.dubbo.benchmark.ClientPb.createUser", "mode=thrpt", "", "ops/ms", bench.HigherIsBetter, 12.380, -1, 3},
		// "createUser·p0.50:   2.609 ms/op" under Iteration 1
		{"jmh-text-dkisser-dubbo-awesome-iterations-sample.txt", "org.apache.dubbo.benchmark.ClientPb.createUser", "mode=sample", "p50", "ms/op", bench.LowerIsBetter, 2.609, -1, 3},
		// score printed alone on a line after the benchmark's own output
		{"jmh-text-liuwenru-benchmark-interleaved-stdout-params-single-iter.txt", "com.epoint.Redis_benchmark.Cluster_benchmark.Redis_Cluster_Benchmark_ReadOP.test_GET", "DATASIZE=1024/HOST=172.31.68.83/PORT=7001/cleanbenchdatashell=/root/cleancluster.sh/mode=thrpt", "", "ops/s", bench.HigherIsBetter, 12840.395, -1, 1},
		// rawData [[1.524957059947031E8, ...]]
		{"jmh-json-bencher-caffeine-params-threads32.json", "com.github.caffeine.caffeine.cache.ComputeBenchmark.compute_sameKey", "computeType=Caffeine/mode=thrpt", "", "ops/s", bench.HigherIsBetter, 1.524957059947031e8, -1, 3},
		// "benchmark_1",...,"439,000000",NaN
		{"jmh-csv-openjdk-jmh-golden-ru-locale.csv", "benchmark_1", "param0=value0/param1=[value1]/param2={value2}/param3='value3'/param4=\"value4\"/mode=thrpt", "", "ops/ms", bench.HigherIsBetter, 439, 0, 1},
		// "[READ], LatencyVariance(us), 3.489955785875464E8"
		{"ycsb-java-issue1591-histogram-latencyvariance-sci.txt", "READ", "", "LatencyVariance", "us^2", bench.LowerIsBetter, 3.489955785875464e8, 0, 499304},
		// "[OVERALL], Throughput(ops/sec), 13053.126223730584", -p threadcount=10
		{"ycsb-java-cosminsaracil-v0.17-full-log-status-lines.txt", "OVERALL", "workload=workloada/threads=10", "Throughput", "ops/s", bench.HigherIsBetter, 13053.126223730584, 0, 1},
		// "[UPDATE], AverageLatency(ms), 0.054989816700611"
		{"ycsb-java-issue318-wiki-ms-units-return0-buckets.txt", "UPDATE", "", "AverageLatency", "ms", bench.LowerIsBetter, 0.054989816700611, 0, 491},
		// "UPDATE - ... **OPS: 351.8,** Avg(us): 2155"
		{"goycsb-pingcap-issue268-run-finished-hours.txt", "UPDATE", "", "Throughput", "ops/s", bench.HigherIsBetter, 351.8, 0, 1},
		// last interval: "INSERT - Takes(s): 40.0, Count: 1656567, ... 99th(us): 43000"
		{"goycsb-tikv-issue3826-2018-95th-bucketed.txt", "INSERT", "workload=core/threads=200", "p99", "us", bench.LowerIsBetter, 43000, 0, 1656567},
		// "SequentialWriteTest 99.999th = 136740.60747014615", client 1
		{"hbase-pe-unknownrepo-hbase1.1.2-per-client-latency-summary.txt", "SequentialWriteTest", "client=TestClient-1", "p99.999", "us", bench.LowerIsBetter, 136740.60747014615, 0, 10000000},
		// "Summary of timings (ms): [525574, 553359]"
		{"hbase-pe-unknownrepo-hbase1.1.2-per-client-latency-summary.txt", "SequentialWriteTest", "", "Time", "ms", bench.LowerIsBetter, 525574, -1, 2},
		{"hbase-wal-synthetic-from-source.txt", "WALPerformanceEvaluation", "threads=10/iterations=10000/syncInterval=0", "Throughput", "ops/s", bench.HigherIsBetter, 3332.112, 0, 1},
		{"hbase-wal-synthetic-from-source.txt", "latencyHistogram.nanos", "threads=10/iterations=10000/syncInterval=0", "p99", "ns", bench.LowerIsBetter, 210000, 0, 1},
		// "2,015,511,676,522      cycles:u"
		{"perfstat-MattyMuir-user-modifier-u.txt", "cycles:u", "", "", "cycles", bench.LowerIsBetter, 2015511676522, -1, 1},
		// "647,202.51 msec task-clock:u"
		{"perfstat-MattyMuir-user-modifier-u.txt", "task-clock:u", "", "", "msec", bench.LowerIsBetter, 647202.51, -1, 1},
		// "#    5.19  insn per cycle"
		{"perfstat-grahamking-topdown-thousands-sep.txt", "instructions", "", "IPC", "insn per cycle", bench.HigherIsBetter, 5.19, -1, 1},
		// "8008.478891      cpu-clock (msec)"
		{"perfstat-netdata-issue3232-interval-I1000.txt", "cpu-clock", "", "", "msec", bench.LowerIsBetter, 8008.478891, -1, 1},
		// "0.250336972'CPU30'1''cpu-migrations'..."
		{"perfstat-csv-gz-autoperf-issue4-apostrophe-sep-per-cpu.txt", "cpu-migrations", "cpu=CPU30", "", "count", bench.LowerIsBetter, 1, -1, 1},
		// "LRANGE_600 (first 600 elements): 12245.45 requests per second, p50=0.519 msec"
		{"redis-benchmark-apecloud-kubebench-quiet-q.txt", "LRANGE_600 (first 600 elements)", "", "", "QPS", bench.HigherIsBetter, 12245.45, 0, 1},
		{"redis-benchmark-apecloud-kubebench-quiet-q.txt", "LRANGE_600 (first 600 elements)", "", "p50", "ms", bench.LowerIsBetter, 0.519, 0, 1},
		// "-d 50" then "SET","169491.53"
		{"redis-benchmark-csv-helloWorld-zy-pre6.2-CRLF-interleaved-notes.txt", "SET", "payload=50", "", "QPS", bench.HigherIsBetter, 169491.53, 0, 1},
		// "JSON.GET jsonsl-1 .","19920.32",...,"0.287"
		{"redis-benchmark-csv-redisbench-admin-v6.2.4-warning-line-first.csv", "JSON.GET jsonsl-1 .", "", "p99", "ms", bench.LowerIsBetter, 0.287, 0, 1},
		// "50.000% <= 0.295 milliseconds"
		{"redis-benchmark-redis-pr4455-v6.2-default-percentile-head.txt", "SET", "clients=50/payload=3", "p50", "ms", bench.LowerIsBetter, 0.295, 0, 1},
		{"redis-benchmark-redis-pr5873-v5-precision-buckets.txt", "set a 5", "clients=100/payload=3", "", "QPS", bench.HigherIsBetter, 244498.77, 0, 1},
		// "tps = 108.832630 (excluding connections establishing)"
		{"pgbench-cockroachdb-issue4091-pg95-latency-colon.txt", "TPC-B (sort of)", "scale=1/clients=1/threads=1", "", "tps", bench.HigherIsBetter, 108.832630, 0, 1},
		// "latency average: 9.188 ms", 3265 transactions
		{"pgbench-cockroachdb-issue4091-pg95-latency-colon.txt", "TPC-B (sort of)", "scale=1/clients=1/threads=1", "AverageLatency", "ms", bench.LowerIsBetter, 9.188, 0, 3265},
		{"pgbench-apecloud-kubebench-pg15-testdata.txt", "TPC-B (sort of)", "scale=100/clients=2/threads=1", "", "tps", bench.HigherIsBetter, 754.431143, 0, 1},
		// times [9.066039999998821e-6, 0.0, 0.0]
		{"hyperfine-json-dandavison-misc-2020-no-exitcodes-sci-notation.json", "", "", "", "s", bench.LowerIsBetter, 9.066039999998821e-6, -1, 3},
		// "real_time": 2.1498980114547953e+02
		{"gbench-json-benchmark-action-fib-context-caches.json", "fib_10", "", "real_time", "ns", bench.LowerIsBetter, 214.98980114547953, -1, 1},
		{"gbench-json-issue977-ctest-prefixed-aggregates.txt", "BM_Repeat", "repeats=4", "cpu_time", "ns", bench.LowerIsBetter, 9.9500000000363187e-07, -1, 1},
		// "BM_copy/8192  201165 ns  201112 ns  3486  38.8466MB/s"
		{"gbench-console-google-benchmark-docs-tools-2017-compare.txt", "BM_copy", "arg0=8192", "cpu_time", "ns", bench.LowerIsBetter, 201112, -1, 1},
		// "BM_memcpy/8  36 ns  36 ns  19101577   211.669MB/s": MB are 2^20 bytes
		// (8 B / 36 ns = 222e6 B/s, not 212e6)
		{"gbench-console-google-benchmark-docs-tools-2017-compare.txt", "BM_memcpy", "arg0=8", "bytes_per_second", "B/s", bench.HigherIsBetter, 211.669 * (1 << 20), -1, 1},
		// "bytes_per_second=11.5877G/s"
		{"gbench-console-issue1749-2024-user-counters-Gs.txt", "ReadLevels_BitPack", "MaxLevel=3/NumLevels=8096/BatchSize=1024/LevelRepeatCount=7", "bytes_per_second", "B/s", bench.HigherIsBetter, 11.5877 * (1 << 30), -1, 1},
		// "time:   [320.62 ps 323.90 ps 327.55 ps]", 100 samples
		{"criterion-console-bencher-many-ps-change-outliers.txt", "file", "", "", "ps", bench.LowerIsBetter, 323.90, (327.55 - 320.62) / 2, 100},
		// "thrpt:  [1.2938 Melem/s 1.2961 Melem/s 1.2987 Melem/s]"
		{"criterion-console-bencher-throughput-melem.txt", "execution/naive/select_1_column/10", "", "thrpt", "elem/s", bench.HigherIsBetter, 1.2961e6, (1.2987e6 - 1.2938e6) / 2, 100},
		// "Adapter::Magic (JSON)" wrapped, "[3.4623 µs 3.4632 µs 3.4641 µs]"
		{"criterion-console-bencher-dogfood-micro-sign-wrapped-name.txt", "Adapter::Magic (JSON)", "", "", "us", bench.LowerIsBetter, 3.4632, 0.0009, 0},
		// "test Fibonacci (Execution) ... bench:     1672496 ns/iter (+/- 10166)"
		{"criterion-bencher-format-benchmark-action-warnings-interleaved.txt", "Fibonacci (Execution)", "", "", "ns/iter", bench.LowerIsBetter, 1672496, 0, 0},
		// measured_values [6666,8888,9999] / iteration_count [448,896,1344.0]
		{"criterion-cargo-criterion-json-benchmark-action-PARTLY-EDITED.ndjson", "Queries/[LIGHT] Bam query all", "", "", "ns", bench.LowerIsBetter, 6666.0 / 448, -1, 3},
		// captured locally: "throughput summary: 30674.85 requests per second"
		{"redis-benchmark-7.0.15-default-summary-local.txt", "SET", "clients=10/payload=3", "", "QPS", bench.HigherIsBetter, 30674.85, 0, 1},
		// "8.69 msec task-clock ... ( +-  3.62% )" over 5 runs
		{"perfstat-6.1-repeat-not-supported-local.txt", "task-clock", "", "", "msec", bench.LowerIsBetter, 8.69, 8.69 * 0.0362, 5},
		// "13,,context-switches,35.53%,..."
		{"perfstat-csv-6.1-repeat-variance-local.csv", "context-switches", "", "", "count", bench.LowerIsBetter, 13, 13 * 0.3553, 0},
		// "SQL script 2: <builtin: simple update>" "- latency average = 3.987 ms", 903 transactions
		{"pgbench-15.18-multiple-scripts-local.txt", "simple update", "scale=2/clients=2/threads=1", "AverageLatency", "ms", bench.LowerIsBetter, 3.987, 0, 903},
		// "BM_memcpy/64  3.69 ns  3.68 ns  3682915 bytes_per_second=16.2163G/s" (first repetition)
		{"gbench-console-1.7.1-repetitions-aggregates-cv-local.txt", "BM_memcpy", "arg0=64", "bytes_per_second", "B/s", bench.HigherIsBetter, 16.2163 * (1 << 30), -1, 1},
		{"gbench-json-1.7.1-repetitions-aggregates-local.json", "BM_memcpy", "arg0=64", "real_time", "ns", bench.LowerIsBetter, 4.7953326487267871, -1, 1},
		// wrapped: "...run       10000  thrpt    5  572.761 " + "± 168.865  ops/s"
		{"jmh-text-seed001-aurora-rb55217-mail-wrapped.txt", "TaskStoreBenchmarks.MemFetchTasksBenchmark.run", "numTasks=10000/mode=thrpt", "", "ops/s", bench.HigherIsBetter, 572.761, 168.865, 5},
		// "4025 2,088,450,796,192 instructions # 0.28 insns per cycle"
		{"perfstat-seed004-hbase15536-jira-line-numbers-wrapped.txt", "instructions", "", "", "count", bench.LowerIsBetter, 2088450796192, -1, 1},
		{"perfstat-seed004-hbase15536-jira-line-numbers-wrapped.txt", "time elapsed", "", "", "s", bench.LowerIsBetter, 916.241768049, -1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.file+"/"+tt.bench+"/"+tt.metric, func(t *testing.T) {
			_, results := render(t, tt.file)
			for _, r := range results {
				if tt.bench != "" && r.Benchmark != tt.bench || r.Params.String() != tt.params || r.Metric != tt.metric || r.Unit != tt.unit {
					continue
				}
				if r.Better != tt.better {
					t.Errorf("better = %v, want %v", r.Better, tt.better)
				}
				got, n, e := 0.0, 0, 0.0
				if len(r.Samples) > 0 {
					got, n = r.Samples[0], len(r.Samples)
				} else {
					got, n, e = r.Summary.Mean, r.Summary.N, r.Summary.Error
				}
				if !approxEqual(got, tt.want) {
					t.Errorf("value = %v, want %v", got, tt.want)
				}
				if n != tt.n {
					t.Errorf("n = %d, want %d", n, tt.n)
				}
				if tt.errHalf >= 0 && !approxEqual(e, tt.errHalf) {
					t.Errorf("error = %v, want %v", e, tt.errHalf)
				}
				return
			}
			t.Errorf("no result for %q %q %q %q among %d", tt.bench, tt.params, tt.metric, tt.unit, len(results))
		})
	}
}

func approxEqual(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}
