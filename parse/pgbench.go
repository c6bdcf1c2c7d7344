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

// PGBench reads pgbench's end-of-run report, 9.5 to 15+:
//
//	transaction type: <builtin: TPC-B (sort of)>
//	number of clients: 2
//	latency average = 1.126 ms            (9.5: "latency average: 9.188 ms")
//	initial connection time = 13.927 ms   (14+)
//	tps = 1775.255590 (without initial connection time)
//
// The transaction type (script) is the benchmark; scaling factor, clients
// and threads are parameters. "tps" is Unit "tps" with an empty Metric;
// when 9.6-13 print two tps lines, the one excluding connection
// establishment is the plain tps and the other Metric
// "tps-including-connections". Latency average and stddev (Metric
// "AverageLatency", "StdDevLatency", ms, N = transactions processed),
// initial connection time and failed transactions are emitted too. A
// report is emitted when its tps line (the last) is read. With several
// scripts (-b/-f) the report's benchmark is "multiple scripts", and each
// "SQL script N:" section adds the script's own tps and latencies. Progress lines
// (-P), kubectl banners and "starting vacuum...end." are ignored.
type PGBench struct{}

// Name returns "pgbench".
func (PGBench) Name() string { return "pgbench" }

var (
	pgKV    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([a-z][a-z ]+?)\s*(?:=|:)\s*(.*)$`) })
	pgTPS   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^tps = ([\d.]+)(?: \((.*)\))?\s*$`) })
	pgMS    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([\d.]+) ms$`) })
	pgSQL   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^SQL script \d+: (.+)$`) })
	pgSTPS  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^- (\d+) transactions \(.*tps = ([\d.]+)\)$`) })
	pgSniff = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)^(transaction type: |tps = [\d.]+|pgbench \(\d+)`)
	})
)

// Sniff looks for pgbench's report lines.
func (PGBench) Sniff(head []byte) int {
	// Each branch of pgSniff holds one of these; checking them first
	// spares running it over a head without any.
	if !bytes.Contains(head, []byte("transaction type: ")) && !bytes.Contains(head, []byte("tps = ")) && !bytes.Contains(head, []byte("pgbench (")) {
		return 0
	}
	if !pgSniff().Match(head) {
		return 0
	}
	if bytes.Contains(head, []byte("number of clients")) || bytes.Contains(head, []byte("tps = ")) {
		return 95
	}
	return 60
}

// pgScriptName strips "<builtin: ...>" from a script name.
func pgScriptName(s string) string {
	s = strings.TrimSpace(s)
	if v, ok := strings.CutPrefix(s, "<builtin: "); ok {
		return strings.TrimSuffix(v, ">")
	}
	return s
}

// Parse reads pgbench output.
func (PGBench) Parse(ctx context.Context, r io.Reader, name string, emit func(*bench.Result) error) error {
	emit = checked(ctx, name, emit)
	lr := newLineReader(r)
	script := ""
	var scale, clients, threads string
	var pending []*bench.Result
	txns := 0
	params := func() bench.Params {
		var ps bench.Params
		for _, p := range []bench.Param{{Name: "scale", Value: scale}, {Name: "clients", Value: clients}, {Name: "threads", Value: threads}} {
			if p.Value != "" {
				ps = append(ps, p)
			}
		}
		return ps
	}
	add := func(metric, unit string, better bench.Direction, v float64, n int) {
		pending = append(pending, &bench.Result{
			Metric: metric, Unit: unit, Better: better, Summary: summary(v, 0, 0, n),
			Source: source(name, lr.Line()),
		})
	}
	flush := func() error {
		for _, res := range pending {
			res.Benchmark = script
			if res.Benchmark == "" {
				res.Benchmark = "pgbench"
			}
			res.Params = params()
			if err := emit(res); err != nil {
				return err
			}
		}
		pending = nil
		return nil
	}
	sawTPS := false
	sqlScript, scriptTxns := "", 0
	emitScript := func(metric, unit string, better bench.Direction, v float64, n int) error {
		return emit(&bench.Result{
			Benchmark: sqlScript, Params: params(), Metric: metric, Unit: unit, Better: better,
			Summary: summary(v, 0, 0, n), Source: source(name, lr.Line()),
		})
	}
	for lr.next(ctx) {
		line := strings.TrimSpace(lr.Text())
		if m := findIf(strings.HasPrefix(line, "tps = "), pgTPS(), line); m != nil {
			v, err := parseFloat(m[1])
			if err != nil {
				return syntaxf(name, lr.Line(), "tps: %v", err)
			}
			metric := ""
			if strings.HasPrefix(m[2], "including") {
				metric = "tps-including-connections"
			}
			add(metric, "tps", bench.HigherIsBetter, v, 1)
			sawTPS = true
			continue
		}
		if sawTPS {
			// The tps lines end a report.
			if err := flush(); err != nil {
				return err
			}
			sawTPS = false
		}
		if strings.HasPrefix(line, "progress: ") {
			continue
		}
		if m := findIf(strings.HasPrefix(line, "SQL script "), pgSQL(), line); m != nil {
			// A per-script section of a run with several -b/-f scripts.
			sqlScript, scriptTxns = pgScriptName(m[1]), 0
			continue
		}
		if sqlScript != "" && strings.HasPrefix(line, "- ") {
			if m := pgSTPS().FindStringSubmatch(line); m != nil {
				fmt.Sscan(m[1], &scriptTxns)
				v, err := parseFloat(m[2])
				if err != nil {
					warnf(ctx, name, lr.Line(), "%s tps: %v; skipped", sqlScript, err)
					continue
				}
				if err := emitScript("", "tps", bench.HigherIsBetter, v, 1); err != nil {
					return err
				}
				continue
			}
			k, val, ok := strings.Cut(strings.TrimPrefix(line, "- "), " = ")
			if !ok {
				continue
			}
			metric := map[string]string{"latency average": "AverageLatency", "latency stddev": "StdDevLatency"}[k]
			mm := pgMS().FindStringSubmatch(val)
			if metric == "" || mm == nil {
				continue
			}
			v, err := parseFloat(mm[1])
			if err != nil {
				warnf(ctx, name, lr.Line(), "%s %s: %v; skipped", sqlScript, k, err)
				continue
			}
			if err := emitScript(metric, "ms", bench.LowerIsBetter, v, scriptTxns); err != nil {
				return err
			}
			continue
		}
		m := pgKV().FindStringSubmatch(line)
		if m == nil {
			continue
		}
		key, val := m[1], strings.TrimSpace(m[2])
		switch key {
		case "transaction type":
			script, sqlScript = pgScriptName(val), ""
		case "scaling factor":
			scale = val
		case "number of clients":
			clients = val
		case "number of threads":
			threads = val
		case "number of transactions actually processed":
			fmt.Sscan(strings.Fields(val + " 0")[0], &txns)
			if i := strings.IndexByte(val, '/'); i > 0 {
				fmt.Sscan(val[:i], &txns)
			}
		case "number of failed transactions":
			v, err := parseFloat(strings.Fields(val + " x")[0])
			if err == nil {
				add("failed transactions", "count", bench.LowerIsBetter, v, 1)
			}
		case "latency average", "latency stddev", "initial connection time":
			mm := pgMS().FindStringSubmatch(val)
			if mm == nil {
				warnf(ctx, name, lr.Line(), "%s: expected \"<number> ms\", got %q; skipped", key, val)
				continue
			}
			v, err := parseFloat(mm[1])
			if err != nil {
				warnf(ctx, name, lr.Line(), "%s: %v; skipped", key, err)
				continue
			}
			metric, n := map[string]string{"latency average": "AverageLatency", "latency stddev": "StdDevLatency", "initial connection time": "ConnectionTime"}[key], txns
			if key == "initial connection time" {
				n = 1
			}
			add(metric, "ms", bench.LowerIsBetter, v, n)
		}
	}
	if err := lr.Err(); err != nil {
		return err
	}
	if len(pending) > 0 && !sawTPS {
		warnf(ctx, name, lr.Line(), "pgbench report has no tps line (truncated?); emitting what it holds")
	}
	return flush()
}
