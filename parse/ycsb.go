package parse

import (
	"bytes"
	"context"
	"io"
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/perfbot/perfbot/bench"
)

// YCSB reads the summary the Java YCSB client prints at the end of a run,
// one "[SECTION], Metric, value" line per measurement:
//
//	[OVERALL], Throughput(ops/sec), 13053.126223730584
//	[READ], 95thPercentileLatency(us), 1543
//	[READ], Return=OK, 50193
//
// in every version: floats everywhere (0.1), "(ms)" latencies and numeric
// return codes (pre-0.5), histogram bucket rows (skipped), Java scientific
// notation, custom operation names, "[READ-FAILED]" sections, and status,
// logging and binding output around the summary (ignored).
//
// The section is the benchmark ("READ", "OVERALL", "TOTAL_GCS_PS_Scavenge");
// the metric name without its unit is the Metric ("AverageLatency",
// "95thPercentileLatency", "Throughput", "Operations", "Return=OK"); the
// parenthesized unit is the Unit, with "ops/sec" normalized to "ops/s" and
// counts as "count". The workload and thread count become parameters when
// the "Command line:" echo shows them (and "target" with -target). Every value is a Summary of one run:
// latency statistics carry the section's operation count as N, everything
// else N=1.
type YCSB struct{}

// Name returns "ycsb".
func (YCSB) Name() string { return "ycsb" }

var (
	ycsbSniff = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)^\s*\[[A-Za-z_-]+\], ?(Operations|AverageLatency\(us\)|Return=)`)
	})
	ycsbStatus = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d:\d+ \d+ sec: \d+ operations;`)
	})
)

var ycsbLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\[([^\]]+)\]\s*,\s*([^,]+?)\s*,\s*(\S+)\s*$`) })

// Sniff looks for "[OVERALL], RunTime(ms)" or similar summary lines.
func (YCSB) Sniff(head []byte) int {
	if bytes.Contains(head, []byte("[OVERALL],")) {
		return 95
	}
	// The literal checks are conditions of each expression's match that
	// cost far less than running it.
	if bytes.Contains(head, []byte("],")) && ycsbSniff().Match(head) {
		return 70
	}
	if bytes.Contains(head, []byte(" sec: ")) && ycsbStatus().Match(head) {
		return 40
	}
	return 0
}

// Parse reads a YCSB summary.
func (YCSB) Parse(ctx context.Context, r io.Reader, name string, emit func(*bench.Result) error) error {
	emit = checked(ctx, name, emit)
	lr := newLineReader(r)
	var params bench.Params
	ops := map[string]int{}
	emitted, lastStatus := 0, 0
	countEmit := emit
	emit = func(r *bench.Result) error { emitted++; return countEmit(r) }
	for lr.next(ctx) {
		line := strings.TrimSpace(lr.Text())
		if strings.Contains(line, " sec: ") && strings.Contains(line, " operations;") {
			lastStatus = lr.Line()
			continue
		}
		if cl, ok := strings.CutPrefix(line, "Command line:"); ok {
			params = ycsbParams(cl)
			continue
		}
		m := findIf(strings.HasPrefix(line, "["), ycsbLine(), line)
		if m == nil {
			continue
		}
		section, metricRaw, valS := m[1], m[2], m[3]
		if metricRaw == ">1000" || isDigits(strings.TrimPrefix(metricRaw, ">")) {
			continue // a histogram bucket row: "[READ], 0, 464"
		}
		v, err := parseFloat(valS)
		if err != nil {
			warnf(ctx, name, lr.Line(), "[%s], %s: %v; skipped", section, metricRaw, err)
			continue
		}
		metric, unit := metricRaw, ""
		if i := strings.LastIndexByte(metricRaw, '('); i > 0 && strings.HasSuffix(metricRaw, ")") {
			metric, unit = metricRaw[:i], metricRaw[i+1:len(metricRaw)-1]
		}
		better := bench.LowerIsBetter
		n := 1
		switch {
		case unit == "ops/sec":
			unit, better = "ops/s", bench.HigherIsBetter
		case metric == "Operations":
			unit, better = "count", bench.HigherIsBetter
			ops[section] = int(v)
		case strings.HasPrefix(metric, "Return="):
			unit = "count"
			if metric == "Return=OK" || metric == "Return=0" {
				better = bench.HigherIsBetter
			}
		case metric == "Count":
			unit = "count"
		case strings.HasPrefix(metric, "LatencyVariance"):
			unit += "^2"
			if c, ok := ops[section]; ok {
				n = c
			}
		case unit == "us" || unit == "ms":
			if c, ok := ops[section]; ok && strings.Contains(metric, "Latency") {
				n = c
			}
		case unit == "":
			unit = "count"
		}
		res := &bench.Result{
			Benchmark: section,
			Params:    params,
			Metric:    metric,
			Unit:      unit,
			Better:    better,
			Summary:   summary(v, 0, 0, n),
			Source:    source(name, lr.Line()),
		}
		if err := emit(res); err != nil {
			return err
		}
	}
	if err := lr.Err(); err != nil {
		return err
	}
	if emitted == 0 && lastStatus > 0 {
		return syntaxf(name, lastStatus, "only status lines, no \"[OVERALL], RunTime(ms), ...\" summary: the run was cut short or its summary went to another stream")
	}
	return nil
}

// ycsbParams picks the workload, thread count and target throughput from
// the client's "Command line:" echo: "-P workloads/workloada -threads 10
// -target 20000" or "-p threadcount=10".
func ycsbParams(cl string) bench.Params {
	f := strings.Fields(cl)
	var workload, threads, target string
	for i := 0; i < len(f); i++ {
		switch {
		case f[i] == "-P" && i+1 < len(f):
			workload = path.Base(strings.ReplaceAll(f[i+1], `\`, "/"))
			i++
		case f[i] == "-threads" && i+1 < len(f):
			threads = f[i+1]
			i++
		case f[i] == "-target" && i+1 < len(f):
			target = f[i+1]
			i++
		case f[i] == "-p" && i+1 < len(f):
			if v, ok := strings.CutPrefix(f[i+1], "threadcount="); ok {
				threads = v
			}
			if v, ok := strings.CutPrefix(f[i+1], "target="); ok {
				target = v
			}
			i++
		}
	}
	var ps bench.Params
	if workload != "" {
		ps = append(ps, bench.Param{Name: "workload", Value: workload})
	}
	for _, p := range []bench.Param{{Name: "threads", Value: threads}, {Name: "target", Value: target}} {
		if _, err := strconv.Atoi(p.Value); err == nil {
			ps = append(ps, p)
		}
	}
	return ps
}
