package parse

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"

	"github.com/perfbot/perfbot/bench"
)

// HBasePE reads the log of HBase's PerformanceEvaluation (hbase pe):
//
//   - "[RandomWriteTest] Summary of timings (ms): [525574, 553359]": each
//     client's elapsed time is one sample of Metric "Time" in ms;
//   - HBase 1.x per-client latency blocks, "<Test> latency log
//     (microseconds), on N measures" followed by "<Test> Min = 3.0", "Avg",
//     "StdDev", "50th" ... "Max" lines (blocks "after 0 measures" are
//     empty and skipped), and HBase 2.x's one-line "Latency (us) :
//     mean=..., min=..., 99th=..." with "Num measures (latency) : N": Metrics
//     "AverageLatency", "MinLatency", "MaxLatency", "StdDevLatency", "p50",
//     "p99.9" in us, Summaries with N measures, per client (param "client");
//   - "Finished class ...$RandomWriteTest in 525574ms at offset 0 for N rows
//     (4.1 MB/s)": the client's rate in MB/s;
//   - 2.x's "[ Avg latency (us)]\t21" and "[ Avg TPS/QPS]\t49405\t row per
//     second" (Metrics "AverageLatency" in us and "Throughput" in rows/s of
//     the test named by the "Summary of timings" line before them).
//
// Log4j prefixes, ZooKeeper and connection noise are ignored.
type HBasePE struct{}

// Name returns "hbase-pe".
func (HBasePE) Name() string { return "hbase-pe" }

var (
	hbTimings = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\[(\w+)\] Summary of timings \(ms\): \[([^\]]*)\]`) })
	hbBlock   = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\[(TestClient-\d+)\][^:]*PerformanceEvaluation: (\w+) (latency log \(microseconds\),? on|valueSize after) (\d+) measures`)
	})
	hbLat2     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:\[(TestClient-\d+)\].*)?Latency \(us\) : (.*)$`) })
	hbNum2     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`Num measures \(latency\) : (\d+)`) })
	hbFinished = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\[(TestClient-\d+)\].*Finished class \S*?\$?(\w+) in (\d+)ms at offset \d+ for \d+ rows \(([\d.]+) MB/s\)`)
	})
	hbAvgLat = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\[ Avg latency \(us\)\]\s+(\S+)`) })
	hbAvgTPS = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\[ Avg TPS/QPS\]\s+(\S+)`) })
)

// Sniff looks for PerformanceEvaluation's log lines.
func (HBasePE) Sniff(head []byte) int {
	if bytes.Contains(head, []byte("hbase.PerformanceEvaluation")) || bytes.Contains(head, []byte("Summary of timings (ms)")) {
		return 95
	}
	return 0
}

// Parse reads a PerformanceEvaluation log.
func (HBasePE) Parse(ctx context.Context, r io.Reader, name string, emit func(*bench.Result) error) error {
	emit = checked(ctx, name, emit)
	lr := newLineReader(r)
	type block struct {
		client, test string
		n            int
		skip         bool
		value        bool
	}
	var cur *block
	var pending []*bench.Result // a 2.x latency line waits for its measure count
	lastTest := ""              // the test of the last "Summary of timings"
	src := func() string { return source(name, lr.Line()) }
	pendingN := 0
	flushPending := func(test string) error {
		for _, res := range pending {
			res.Summary.N = pendingN
			if test != "" {
				res.Benchmark = test
			}
			if err := emit(res); err != nil {
				return err
			}
		}
		pending, pendingN = nil, 0
		return nil
	}
	for lr.next(ctx) {
		line := lr.Text()
		if !strings.Contains(line, "Evaluation") && !strings.Contains(line, "Latency (us)") &&
			!strings.Contains(line, "Summary of timings") && !strings.Contains(line, "[ Avg ") {
			continue // ZooKeeper, connection and other log noise
		}
		if m := findIf(strings.Contains(line, " measures"), hbBlock(), line); m != nil {
			n := 0
			fmt.Sscan(m[4], &n)
			cur = &block{client: m[1], test: m[2], n: n, skip: n == 0, value: strings.HasPrefix(m[3], "valueSize")}
			continue
		}
		if m := hbBlockRowOf(line); m != nil {
			if cur == nil || cur.client != m[1] || cur.test != m[2] || cur.skip {
				continue
			}
			v, err := parseFloat(m[4])
			if err != nil {
				warnf(ctx, name, lr.Line(), "%s %s: %v; skipped", m[2], m[3], err)
				continue
			}
			metric, unit := hbMetric(m[3]), "us"
			if cur.value {
				metric, unit = "valueSize."+metric, "B"
			}
			res := &bench.Result{
				Benchmark: m[2],
				Params:    bench.Params{{Name: "client", Value: m[1]}},
				Metric:    metric,
				Unit:      unit,
				Better:    bench.LowerIsBetter,
				Summary:   summary(v, 0, 0, cur.n),
				Source:    src(),
			}
			if err := emit(res); err != nil {
				return err
			}
			continue
		}
		if m := findIf(len(pending) > 0 && strings.Contains(line, "Num measures"), hbNum2(), line); m != nil {
			fmt.Sscan(m[1], &pendingN)
			continue
		}
		if m := findIf(strings.Contains(line, "Latency (us) :"), hbLat2(), line); m != nil && strings.Contains(m[2], "=") {
			if err := flushPending(""); err != nil {
				return err
			}
			test := "PerformanceEvaluation"
			var params bench.Params
			if m[1] != "" {
				params = bench.Params{{Name: "client", Value: m[1]}}
			}
			for _, kv := range strings.Split(m[2], ",") {
				k, vs, ok := strings.Cut(strings.TrimSpace(kv), "=")
				if !ok {
					continue
				}
				v, err := parseFloat(vs)
				if err != nil {
					warnf(ctx, name, lr.Line(), "latency %s: %v; skipped", k, err)
					continue
				}
				pending = append(pending, &bench.Result{
					Benchmark: test, Params: params, Metric: hbMetric(k), Unit: "us",
					Better: bench.LowerIsBetter, Summary: summary(v, 0, 0, 0), Source: src(),
				})
			}
			continue
		}
		if m := findIf(strings.Contains(line, "Finished class"), hbFinished(), line); m != nil {
			// 2.x latency lines name no test; the Finished line that
			// follows them does.
			if err := flushPending(m[2]); err != nil {
				return err
			}
			v, err := parseFloat(m[4])
			if err != nil {
				warnf(ctx, name, lr.Line(), "%s rate: %v; skipped", m[2], err)
				continue
			}
			res := &bench.Result{
				Benchmark: m[2], Params: bench.Params{{Name: "client", Value: m[1]}}, Metric: "Rate", Unit: "MB/s",
				Better: bench.HigherIsBetter, Summary: summary(v, 0, 0, 1), Source: src(),
			}
			if err := emit(res); err != nil {
				return err
			}
			continue
		}
		if m := findIf(strings.Contains(line, "Summary of timings"), hbTimings(), line); m != nil {
			if err := flushPending(""); err != nil {
				return err
			}
			lastTest = m[1]
			var samples []float64
			for _, f := range strings.Split(m[2], ",") {
				v, err := parseFloat(f)
				if err != nil {
					return syntaxf(name, lr.Line(), "summary of timings of %s: %v", m[1], err)
				}
				samples = append(samples, v)
			}
			if len(samples) == 0 {
				continue
			}
			res := &bench.Result{
				Benchmark: m[1], Metric: "Time", Unit: "ms", Better: bench.LowerIsBetter,
				Samples: samples, Source: src(),
			}
			if err := emit(res); err != nil {
				return err
			}
			continue
		}
		for _, x := range []struct {
			re     *regexp.Regexp
			metric string
			unit   string
			better bench.Direction
		}{{hbAvgLat(), "AverageLatency", "us", bench.LowerIsBetter}, {hbAvgTPS(), "Throughput", "rows/s", bench.HigherIsBetter}} {
			if m := findIf(strings.Contains(line, "[ Avg "), x.re, line); m != nil {
				v, err := parseFloat(m[1])
				if err != nil {
					warnf(ctx, name, lr.Line(), "%s: %v; skipped", x.metric, err)
					continue
				}
				bn := lastTest
				if bn == "" {
					bn = "PerformanceEvaluation"
				}
				res := &bench.Result{
					Benchmark: bn, Metric: x.metric, Unit: x.unit, Better: x.better,
					Summary: summary(v, 0, 0, 1), Source: src(),
				}
				if err := emit(res); err != nil {
					return err
				}
			}
		}
	}
	if err := lr.Err(); err != nil {
		return err
	}
	return flushPending("")
}

// hbBlockRowOf splits a 1.x latency block row, "[TestClient-1]
// hbase.PerformanceEvaluation: SequentialWriteTest 99th     = 9.0", into
// the layout of a regexp submatch: m[1] client, m[2] test, m[3] statistic,
// m[4] value. It returns nil for other lines.
func hbBlockRowOf(line string) []string {
	i := strings.Index(line, "PerformanceEvaluation: ")
	if i < 0 || !strings.Contains(line, " = ") {
		return nil
	}
	f := strings.Fields(line[i+len("PerformanceEvaluation: "):])
	if len(f) != 4 || f[2] != "=" {
		return nil
	}
	switch stat := f[1]; {
	case stat == "Min", stat == "Avg", stat == "StdDev", stat == "Max":
	case strings.HasSuffix(stat, "th") && len(stat) > 2 && stat[0] >= '0' && stat[0] <= '9':
	default:
		return nil
	}
	c := strings.Index(line, "[TestClient-")
	if c < 0 || c > i {
		return nil
	}
	e := strings.IndexByte(line[c:], ']')
	if e < 0 {
		return nil
	}
	return []string{line, line[c+1 : c+e], f[0], f[1], f[3]}
}

// hbMetric names a PerformanceEvaluation latency statistic.
func hbMetric(k string) string {
	switch strings.ToLower(k) {
	case "min":
		return "MinLatency"
	case "max":
		return "MaxLatency"
	case "avg", "mean":
		return "AverageLatency"
	case "stddev":
		return "StdDevLatency"
	}
	if p, ok := strings.CutSuffix(k, "th"); ok {
		if v, err := parseFloat(p); err == nil {
			return percentileMetric(v, false)
		}
	}
	return k
}
