package parse

import (
	"bytes"
	"context"
	"io"
	"regexp"
	"strings"
	"sync"

	"github.com/perfbot/perfbot/bench"
)

// HBaseWAL reads the output of HBase's WALPerformanceEvaluation:
//
//	Summary: threads=100, iterations=100000, syncInterval=0 took 123.456s 81000.123ops/s
//
// (older HLogPerformanceEvaluation printed the time in ms), and the
// metrics reporter blocks it prints to stdout, Dropwizard's (2.x+):
//
//	org.apache.hadoop.hbase.wal.WALPerformanceEvaluation.latencyHistogram.nanos
//	             count = 1000
//	              mean = 12.34
//	              99% <= 56.00
//
// or Yammer 2.x's of the older HLogPerformanceEvaluation, where the metric
// name ("  syncMeter:") is indented under its class.
//
// The summary line gives Benchmark "WALPerformanceEvaluation" with the
// threads, iterations and syncInterval parameters, Metric "Time" (s or ms)
// and "Throughput" (ops/s). The reporter prints every 30 s and its figures
// are cumulative, so only the last block of each metric is kept and
// emitted at the end: the metric's short name ("latencyHistogram.nanos")
// is the benchmark, the statistic ("mean", "p50", "p99", "rate") the
// Metric; ".nanos" histograms are in ns, ".bytes" meters in B/s, event
// meters in events/s.
type HBaseWAL struct{}

// Name returns "hbase-wal".
func (HBaseWAL) Name() string { return "hbase-wal" }

var (
	walSummary = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`Summary: ((?:\w+=\w+, )*\w+=\w+) took ([\d.,]+)(s|ms) ([\d.,]+)ops/s`)
	})
	walYammer = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^  (\w+(?:\.[\w-]+)*):\s*$`) })
	walMetric = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:org\.apache\.hadoop\.hbase\.(?:regionserver\.wal|wal)\.\w*PerformanceEvaluation\.)(\S+)\s*$`)
	})
	walStat = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s+([\w.% -]+?)\s*(?:=|<=)\s*(\S+)(?:\s+(\S+))?\s*$`)
	})
)

// Sniff looks for the summary line or the reporter's metric names.
func (HBaseWAL) Sniff(head []byte) int {
	if walSummary().Match(head) || bytes.Contains(head, []byte("WALPerformanceEvaluation.")) || bytes.Contains(head, []byte("HLogPerformanceEvaluation")) {
		return 95
	}
	return 0
}

type walStatValue struct {
	stat string
	v    float64
	unit string
	line int
}

// Parse reads WALPerformanceEvaluation output.
func (HBaseWAL) Parse(ctx context.Context, r io.Reader, name string, emit func(*bench.Result) error) error {
	emit = checked(ctx, name, emit)
	lr := newLineReader(r)
	var params bench.Params
	var order []string
	last := map[string][]walStatValue{}
	cur := ""
	for lr.next(ctx) {
		line := lr.Text()
		if m := findIf(strings.Contains(line, "Summary: "), walSummary(), line); m != nil {
			cur = ""
			params = nil
			for _, kv := range strings.Split(m[1], ", ") {
				k, v, _ := strings.Cut(kv, "=")
				params = append(params, bench.Param{Name: k, Value: v})
			}
			// String.format in the JVM's locale: "123,456s" is possible.
			t, err1 := parseLocale(m[2])
			ops, err2 := parseLocale(m[4])
			if err1 != nil || err2 != nil {
				return syntaxf(name, lr.Line(), "WAL summary: expected \"took <time>s <rate>ops/s\"")
			}
			src := source(name, lr.Line())
			for _, res := range []*bench.Result{
				{Benchmark: "WALPerformanceEvaluation", Params: params, Metric: "Time", Unit: m[3], Better: bench.LowerIsBetter, Summary: summary(t, 0, 0, 1), Source: src},
				{Benchmark: "WALPerformanceEvaluation", Params: params, Metric: "Throughput", Unit: "ops/s", Better: bench.HigherIsBetter, Summary: summary(ops, 0, 0, 1), Source: src},
			} {
				if err := emit(res); err != nil {
					return err
				}
			}
			continue
		}
		if m := findIf(!strings.HasPrefix(line, " ") && strings.Contains(line, "PerformanceEvaluation."), walMetric(), strings.TrimSpace(line)); m != nil {
			cur = m[1]
			if _, ok := last[cur]; !ok {
				order = append(order, cur)
			}
			last[cur] = last[cur][:0]
			continue
		}
		if m := findIf(strings.HasPrefix(line, "  ") && strings.HasSuffix(strings.TrimSpace(line), ":"), walYammer(), line); m != nil {
			// Yammer metrics 2.x (HLogPerformanceEvaluation): the metric
			// name indented under its class, "  syncMeter:".
			cur = m[1]
			if _, ok := last[cur]; !ok {
				order = append(order, cur)
			}
			last[cur] = last[cur][:0]
			continue
		}
		if cur == "" {
			continue
		}
		m := walStat().FindStringSubmatch(line)
		if m == nil {
			if strings.TrimSpace(line) != "" {
				cur = ""
			}
			continue
		}
		v, err := parseFloat(m[2])
		if err != nil {
			warnf(ctx, name, lr.Line(), "%s %s: %v; skipped", cur, m[1], err)
			continue
		}
		last[cur] = append(last[cur], walStatValue{stat: strings.TrimSpace(m[1]), v: v, unit: m[3], line: lr.Line()})
	}
	if err := lr.Err(); err != nil {
		return err
	}
	for _, metric := range order {
		for _, sv := range last[metric] {
			res := walResult(metric, sv, params)
			if res == nil {
				continue
			}
			res.Source = source(name, sv.line)
			if err := emit(res); err != nil {
				return err
			}
		}
	}
	return nil
}

// walResult maps one reporter statistic to a result, or nil for those
// perfbot does not compare (counts, moving-average rates).
func walResult(metric string, sv walStatValue, params bench.Params) *bench.Result {
	unit := "count"
	switch {
	case strings.HasSuffix(metric, ".nanos") || strings.HasSuffix(metric, "nanos-between-syncs"),
		metric == "latencyHistogram" || metric == "syncHistogram":
		unit = "ns"
	case strings.HasSuffix(metric, ".bytes") || metric == "appendMeter":
		unit = "B"
	}
	stat := sv.stat
	better := bench.LowerIsBetter
	switch {
	case stat == "count" || strings.Contains(stat, "-minute rate"):
		return nil
	case stat == "mean rate":
		stat = "rate"
		better = bench.HigherIsBetter
		if unit == "B" {
			unit = "B/s"
		} else {
			unit = "events/s"
		}
	case stat == "median":
		stat = "p50"
	case unit == "ns" && (stat == "mean" || stat == "min" || stat == "max" || stat == "stddev"):
		stat = hbMetric(stat) // AverageLatency, MinLatency...
	case strings.HasSuffix(stat, "%"):
		v, err := parseFloat(strings.TrimSuffix(stat, "%"))
		if err != nil {
			return nil
		}
		stat = percentileMetric(v, false)
	}
	return &bench.Result{
		Benchmark: metric, Params: params, Metric: stat, Unit: unit, Better: better,
		Summary: summary(sv.v, 0, 0, 1),
	}
}
