package parse

import (
	"bytes"
	"context"
	"encoding/csv"
	"io"
	"regexp"
	"strings"
	"sync"

	"github.com/perfbot/perfbot/bench"
)

// RedisBenchmark reads redis-benchmark output in all its shapes:
//
//   - default, before 6.2: "====== SET ======", a config block ("50
//     parallel clients", "3 bytes payload"), cumulative "99.52% <= 1
//     milliseconds" rows (ignored: bucketed, and non-monotonic in some
//     versions) and "129870.13 requests per second";
//   - default, 6.2+: the same title padded with spaces, "Latency by
//     percentile distribution:" rows "50.000% <= 0.295 milliseconds
//     (cumulative count 50885)" (Metric "p50" in ms; the "Cumulative
//     distribution of latencies:" rows of the same shape are skipped), and
//     the "Summary:"
//     block with "throughput summary:" and the "latency summary (msec):"
//     table of avg/min/p50/p95/p99/max;
//   - quiet (-q): "SET: 104166.66 requests per second[, p50=0.087 msec]";
//   - --csv: two columns before 6.2 ("SET","145985.41"), a header and eight
//     columns ("test","rps","avg_latency_ms",...) since.
//
// The test name is the benchmark; requests per second are Unit "QPS",
// higher is better; latencies are in ms, lower is better. Parameters come
// from the block's config lines (clients, payload) or an echoed
// "redis-benchmark ... -c 50 -d 10 -P 16" command line (clients, payload,
// pipeline). Values are Summaries of one run. Shell prompts, notes and
// carriage-return progress leftovers are ignored.
type RedisBenchmark struct{}

// Name returns "redis-benchmark".
func (RedisBenchmark) Name() string { return "redis-benchmark" }

var (
	redisTitle = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^====== (.+?) ======\s*$`) })
	redisRPS   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*([\d.]+) requests per second\s*$`) })
	redisQuiet = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(.+?): ([\d.]+) requests per second(?:, p50=([\d.]+) msec)?\s*$`)
	})
	redisCSV2    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^"([^"]*)","([^"]*)"\s*$`) })
	redisClients = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s+(\d+) parallel clients\s*$`) })
	redisPayload = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s+(\d+) bytes payload\s*$`) })
	redisThrSum  = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*throughput summary: ([\d.]+) requests per second\s*$`)
	})
	redisSniff = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)(requests per second|^====== .+ ======|^"test","rps"|^"[A-Z_]+( \([^)]*\))?","[\d.]+"\r?$)`)
	})
)

// Sniff looks for "requests per second", a "======" title or the CSV forms.
func (RedisBenchmark) Sniff(head []byte) int {
	// Each branch of redisSniff holds one of these; checking them first
	// spares running it over a head without any.
	if !bytes.Contains(head, []byte("requests per second")) && !bytes.Contains(head, []byte("====== ")) && !bytes.Contains(head, []byte(`","`)) {
		return 0
	}
	if redisSniff().Match(head) {
		if bytes.Contains(head, []byte("redis-benchmark")) || bytes.Contains(head, []byte("requests per second")) {
			return 95
		}
		return 70
	}
	return 0
}

// Parse reads redis-benchmark output.
func (RedisBenchmark) Parse(ctx context.Context, r io.Reader, name string, emit func(*bench.Result) error) error {
	emit = checked(ctx, name, emit)
	lr := newLineReader(r)
	var cmdParams, blockParams bench.Params
	test := ""
	var csvHeader []string
	inLatencySummary := false
	inPct := false
	seen := map[string]bool{} // metrics emitted for the current test
	var latCols []string
	out := func(bn string, params bench.Params, metric, unit string, v float64) error {
		better := bench.LowerIsBetter
		if unit == "QPS" {
			better = bench.HigherIsBetter
		}
		return emit(&bench.Result{
			Benchmark: bn, Params: params, Metric: metric, Unit: unit, Better: better,
			Summary: summary(v, 0, 0, 1), Source: source(name, lr.Line()),
		})
	}
	for lr.next(ctx) {
		raw := lr.Text()
		// A progress line overwritten with "\r" leaves the final text
		// after the last carriage return.
		if i := strings.LastIndexByte(raw, '\r'); i >= 0 {
			raw = raw[i+1:]
		}
		line := strings.TrimRight(raw, " \t")
		if i := strings.Index(line, "redis-benchmark "); i >= 0 && !strings.Contains(line, "requests per second") {
			cmdParams = redisCmdParams(line[i:])
			continue
		}
		if m := findIf(strings.HasPrefix(line, "======"), redisTitle(), line); m != nil {
			test = strings.TrimSpace(m[1])
			blockParams = nil
			inPct = false
			clear(seen)
			inLatencySummary = false
			continue
		}
		if m := findIf(test != "" && strings.HasSuffix(line, "clients"), redisClients(), line); m != nil {
			blockParams = append(blockParams, bench.Param{Name: "clients", Value: m[1]})
			continue
		}
		if m := findIf(test != "" && strings.HasSuffix(line, "payload"), redisPayload(), line); m != nil {
			blockParams = append(blockParams, bench.Param{Name: "payload", Value: m[1]})
			continue
		}
		params := cmdParams
		if test != "" && len(blockParams) > 0 {
			params = blockParams
		}
		switch strings.TrimSpace(line) {
		case "Latency by percentile distribution:":
			inPct = true
			continue
		case "Cumulative distribution of latencies:":
			inPct = false // the same row shape, but by latency bucket
			continue
		}
		if m := redisPctRow(line); inPct && test != "" && m != nil {
			p, err1 := parseFloat(m[1])
			v, err2 := parseFloat(m[2])
			if err1 != nil || err2 != nil {
				warnf(ctx, name, lr.Line(), "percentile row: expected numbers; skipped")
				continue
			}
			metric := percentileMetric(p, false)
			seen[metric] = true
			if err := out(test, params, metric, "ms", v); err != nil {
				return err
			}
			continue
		}
		rps := strings.Contains(line, "requests per second")
		if m := findIf(test != "" && rps, redisThrSum(), line); m != nil {
			v, _ := parseFloat(m[1])
			if err := out(test, params, "", "QPS", v); err != nil {
				return err
			}
			continue
		}
		if strings.TrimSpace(line) == "latency summary (msec):" {
			inLatencySummary, latCols = true, nil
			continue
		}
		if inLatencySummary {
			f := strings.Fields(line)
			if len(f) == 0 {
				inLatencySummary = false
				continue
			}
			if latCols == nil {
				latCols = f
				continue
			}
			for i, c := range latCols {
				if i >= len(f) {
					break
				}
				if seen[c] {
					continue // also a row of the percentile distribution
				}
				v, err := parseFloat(f[i])
				if err != nil {
					warnf(ctx, name, lr.Line(), "latency summary %s: %v; skipped", c, err)
					continue
				}
				if err := out(test, params, redisMetric(c), "ms", v); err != nil {
					return err
				}
			}
			inLatencySummary = false
			continue
		}
		if m := findIf(test != "" && rps, redisRPS(), line); m != nil {
			v, err := parseFloat(m[1])
			if err != nil {
				return syntaxf(name, lr.Line(), "%s: requests per second: %v", test, err)
			}
			if err := out(test, params, "", "QPS", v); err != nil {
				return err
			}
			continue
		}
		if m := findIf(rps && !strings.HasPrefix(line, "\""), redisQuiet(), line); m != nil {
			v, err := parseFloat(m[2])
			if err != nil {
				return syntaxf(name, lr.Line(), "%s: requests per second: %v", m[1], err)
			}
			bn := m[1]
			if err := out(bn, cmdParams, "", "QPS", v); err != nil {
				return err
			}
			if m[3] != "" {
				if p50, err := parseFloat(m[3]); err == nil {
					if err := out(bn, cmdParams, "p50", "ms", p50); err != nil {
						return err
					}
				}
			}
			continue
		}
		if strings.HasPrefix(line, "\"") {
			rec, err := redisCSVRow(line)
			if err != nil {
				warnf(ctx, name, lr.Line(), "CSV row: %v; skipped", err)
				continue
			}
			if len(rec) > 2 && rec[0] == "test" {
				csvHeader = rec
				continue
			}
			if len(rec) < 2 {
				continue
			}
			cols := csvHeader
			if len(cols) != len(rec) {
				if len(rec) != 2 || redisCSV2().FindString(line) == "" {
					warnf(ctx, name, lr.Line(), "CSV row has %d columns, header %d; skipped", len(rec), len(cols))
					continue
				}
				cols = []string{"test", "rps"}
			}
			for i := 1; i < len(rec); i++ {
				v, err := parseFloat(rec[i])
				if err != nil {
					warnf(ctx, name, lr.Line(), "%s %s: %v; skipped", rec[0], cols[i], err)
					continue
				}
				metric, unit := redisMetric(strings.TrimSuffix(strings.TrimSuffix(cols[i], "_ms"), "_latency")), "ms"
				if cols[i] == "rps" {
					metric, unit = "", "QPS"
				}
				if err := out(rec[0], cmdParams, metric, unit, v); err != nil {
					return err
				}
			}
		}
	}
	return lr.Err()
}

// redisMetric names a latency statistic as the other parsers do: avg,
// min and max become AverageLatency, MinLatency and MaxLatency;
// percentiles stay "p50", "p99".
func redisMetric(c string) string {
	switch c {
	case "avg":
		return "AverageLatency"
	case "min":
		return "MinLatency"
	case "max":
		return "MaxLatency"
	}
	return c
}

// redisPctRow splits "50.000% <= 0.295 milliseconds (cumulative count
// 50885)" into the layout of a regexp submatch: m[1] percentile, m[2]
// latency. It returns nil for other lines.
func redisPctRow(line string) []string {
	f := strings.Fields(line)
	if len(f) != 7 || f[1] != "<=" || f[3] != "milliseconds" || f[4] != "(cumulative" || !strings.HasSuffix(f[0], "%") {
		return nil
	}
	return []string{line, strings.TrimSuffix(f[0], "%"), f[2]}
}

// redisCSVRow reads one line of redis-benchmark's CSV, whose fields are
// all quoted, through encoding/csv only when a field holds a quote.
func redisCSVRow(line string) ([]string, error) {
	if strings.HasSuffix(line, "\"") && strings.Count(line, "\"") == 2*(strings.Count(line, "\",\"")+1) {
		return strings.Split(line[1:len(line)-1], "\",\""), nil
	}
	return csv.NewReader(strings.NewReader(line)).Read()
}

// redisCmdParams reads -c, -d and -P from an echoed command line.
func redisCmdParams(cmd string) bench.Params {
	f := strings.Fields(cmd)
	var ps bench.Params
	for i := 0; i+1 < len(f); i++ {
		name := map[string]string{"-c": "clients", "-d": "payload", "-P": "pipeline"}[f[i]]
		if name != "" && isDigits(f[i+1]) {
			ps = append(ps, bench.Param{Name: name, Value: f[i+1]})
			i++
		}
	}
	return ps
}
