// Package parse turns benchmark tools' output into perfbot's common model,
// bench.Result. There is one file per format; each format is a Parser value
// (GoBench, JMHText, JMHLog, JMHJSON, JMHCSV, YCSB, GoYCSB, HBasePE,
// HBaseWAL, PerfStat, PerfStatCSV, RedisBenchmark, PGBench, Hyperfine,
// GBenchJSON, GBench, Criterion, CriterionJSON, Cachegrind), Formats lists them and
// Detect picks one from the first 64 KiB of an input.
//
// # Mapping rules
//
// Every parser follows the same rules, so that results from different
// tools compare alike:
//
//   - Benchmark is the benchmark's name without its parameters: the JMH
//     method ("org.example.Store.get"), the YCSB or go-ycsb operation
//     ("READ", "OVERALL", "READ_ERROR", "TOTAL"), the redis-benchmark test
//     ("SET", "LRANGE_100 (first 100 elements)"), the pgbench script ("TPC-B
//     (sort of)"), the hyperfine command, the perf stat event ("cycles:u",
//     "task-clock", "time elapsed"), the gbench name without its arguments
//     ("BM_copy"), the Criterion id, cachegrind's "cmd:" line.
//   - Group is the class or command the tool names, when it names one: the
//     Go package, the command perf stat measured.
//   - Params are ordered as the tool prints them: JMH @Params (then "mode",
//     thrpt/avgt/sample/ss, since one method measured in two modes is two
//     series), YCSB "workload" and "threads" from the echoed command line or
//     go-ycsb's properties block, redis-benchmark "clients", "payload",
//     "pipeline", pgbench "scale", "clients", "threads", gbench arguments
//     ("arg0" for positional ones, "threads" for threads:8), hyperfine
//     parameters, perf stat's "cpu" with -A, HBase PE's "client", WAL
//     "threads", "iterations", "syncInterval".
//   - Metric tells apart several metrics of one benchmark that share a
//     unit, and is empty for the tool's headline figure. Latency statistics
//     have the same names in every format: "AverageLatency", "MinLatency",
//     "MaxLatency", "StdDevLatency" and percentiles "p50", "p99", "p99.9"
//     (YCSB keeps its own "95thPercentileLatency" names). JMH secondary
//     metrics by their name without the "@"/"·" prefix ("gc.alloc.rate");
//     percentiles as "p50", "p99", "p99.9" (JMH's p0.999 included); YCSB's
//     own names ("AverageLatency", "95thPercentileLatency", "Throughput",
//     "Operations", "Return=OK"); go-ycsb's in the same words
//     ("Throughput", "AverageLatency", "p99"); gbench "real_time" and
//     "cpu_time" and user counters by name; perf stat "IPC" for insn per
//     cycle; pgbench "AverageLatency", "StdDevLatency",
//     "tps-including-connections"; "simulated" (bench.Simulated) for
//     cachegrind's counts, whose units are "instructions" and
//     "est-cycles".
//   - Unit is normalized: time units stay as the tool printed them (JMH's
//     "ns/op", "ms/op", Criterion's "ps"/"ns"/"us" with µs written "us",
//     "ms", "s"); throughput is "ops/s" (JMH keeps "ops/ms" etc. as printed;
//     YCSB's "ops/sec" becomes "ops/s"); redis-benchmark's requests per
//     second are "QPS"; pgbench's are "tps"; bytes are "B" ("B/op", "B/s",
//     SI/IEC prefixes of gbench counters and Criterion throughputs scaled
//     away); perf stat events carry their printed unit ("msec"), else
//     "cycles" for cycle events and "count" for other counters; plain counts
//     are "count".
//   - Better follows bench.DirectionOf where the unit decides it
//     (throughput higher, times lower) and is set explicitly where it does
//     not: JMH gc profiler rates (MB/sec) and percentiles are lower-is-better,
//     perf stat counters (cycles, instructions, context-switches,
//     cache-misses) lower, IPC higher, YCSB Return=OK and operation counts
//     higher, other return codes lower.
//   - Samples hold raw values when the tool gives them: Go benchmark lines,
//     JMH rawData and run-log iterations (sample mode: each iteration's
//     mean, the score JMH prints per iteration), hyperfine times, gbench
//     repetitions, cargo-criterion measured values per iteration, HBase PE's
//     per-client timings, perf stat counts of a single run or interval.
//     Otherwise Summary holds what the tool printed: Mean, Error as the
//     half-width of the interval at Confidence (JMH 0.999, Criterion 0.95,
//     perf stat -r 0.6827 since its "+- x%" is a standard error), and N
//     (JMH Cnt, YCSB and pgbench latency statistics: the operation count;
//     other figures of one run: 1; 0 when unknown). Samples are never
//     invented from a summary.
//   - Source is "file:line" of the line (or record) the result came from.
//
// # Errors
//
// Malformed or truncated input yields a *SyntaxError naming the file, the
// line and what was expected, never a panic and never a zero standing in for
// a value that could not be read. A row that cannot be used but does not
// stop the rest (a NaN score, a "<not supported>" counter, JMH's
// approximate "≈ 10⁻⁵") is skipped with a warning, reported to the
// function installed with WithWarnings. Fragments (a JSON file cut out of a
// larger one) yield the records they hold completely, then an error naming
// the line where the cut record began.
//
// # Streaming
//
// Parsers read their input as a stream: line by line with a bounded line
// length, or record by record for JSON documents (JMH arrays, gbench's
// benchmarks array, NDJSON), so a log of any size is parsed in bounded
// memory. Results are emitted as soon as they are complete.
package parse
