package parse

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/perfbot/perfbot/bench"
)

// GoYCSB reads go-ycsb's output, in every generation of its line format:
//
//	READ   - Takes(s): 10.0, Count: 472177, OPS: 47412.4, Avg(us): 4154, Min(us): 721, Max(us): 158564, 95th(us): 7000, 99th(us): 29000
//
// (95th/99th only in 2018; 99th/99.9th/99.99th from 2019; a TOTAL row and
// 50th/90th/95th since v1.0.1), and the table and JSON renderings of the
// same rows chosen with -p outputstyle=table|json (2022+). "READ_ERROR" rows are operations of their
// own. Interval blocks repeat every few seconds with cumulative figures;
// the final block, after "Run finished, takes ...", is the run's result.
// Only the last block is emitted (the final one, or for an excerpt of
// interval lines the latest), when the input ends; one block is held in
// memory at a time.
//
// The operation is the benchmark; "OPS" becomes Metric "Throughput" in
// ops/s, "Avg(us)" Metric "AverageLatency", percentiles "p99", "p99.9" in
// us; Count, Takes(s), Min and Max are emitted too. The "workload" and
// "threadcount" properties become parameters when the properties block
// shows them. Values are Summaries; latencies carry Count as N. Markdown
// emphasis ("**OPS: 351.2**") pasted into issues is tolerated.
type GoYCSB struct{}

// Name returns "go-ycsb".
func (GoYCSB) Name() string { return "go-ycsb" }

var (
	goYCSBProp = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^"([^"]*)"="(.*)"$`) })
)

// Sniff looks for "OP - Takes(s): ..., Count: ..." rows.
func (GoYCSB) Sniff(head []byte) int {
	if bytes.Contains(head, []byte(" - Takes(s): ")) && bytes.Contains(head, []byte("Count: ")) ||
		bytes.Contains(head, []byte("| OPERATION | TAKES(S) |")) || bytes.Contains(head, []byte(`[{"Operation":`)) {
		return 95
	}
	return 0
}

// Parse reads go-ycsb output.
func (GoYCSB) Parse(ctx context.Context, r io.Reader, name string, emit func(*bench.Result) error) error {
	emit = checked(ctx, name, emit)
	lr := newLineReader(r)
	var params bench.Params
	var workload, threads string
	final := false
	// Interval rows are buffered per block, and a block is emitted when the
	// next begins, unless a "Run finished" line shows a final block is
	// coming; this keeps memory bounded by one block.
	var block []*bench.Result
	flushBlock := func() error {
		for _, res := range block {
			if err := emit(res); err != nil {
				return err
			}
		}
		block = block[:0]
		return nil
	}
	lastOp := map[string]bool{}
	var tableCols []string
	for lr.next(ctx) {
		line := strings.ReplaceAll(lr.Text(), "**", "")
		t := strings.TrimSpace(line)
		if m := findIf(strings.HasPrefix(t, "\""), goYCSBProp(), t); m != nil {
			switch m[1] {
			case "workload":
				workload = m[2]
			case "threadcount":
				threads = m[2]
			}
			params = nil
			if workload != "" {
				params = append(params, bench.Param{Name: "workload", Value: workload})
			}
			if threads != "" {
				params = append(params, bench.Param{Name: "threads", Value: threads})
			}
			continue
		}
		if strings.HasPrefix(t, "Run finished") {
			block = block[:0] // interval rows before the final block
			lastOp = map[string]bool{}
			final = true
			continue
		}
		var rowsIn [][2]string // operation, "Name: value, ..." fields
		switch {
		case strings.HasPrefix(t, "|") && strings.HasSuffix(t, "|"):
			cells := goYCSBCells(t)
			if len(cells) > 1 && strings.EqualFold(cells[0], "operation") {
				tableCols = cells
				continue
			}
			if tableCols == nil || len(cells) != len(tableCols) {
				continue
			}
			var parts []string
			for i := 1; i < len(cells); i++ {
				parts = append(parts, goYCSBColumn(tableCols[i])+": "+cells[i])
			}
			rowsIn = append(rowsIn, [2]string{cells[0], strings.Join(parts, ", ")})
		case strings.HasPrefix(t, `[{"Operation"`):
			var objs []map[string]string
			if err := json.Unmarshal([]byte(t), &objs); err != nil {
				return syntaxf(name, lr.Line(), "go-ycsb JSON output: %v", err)
			}
			for _, o := range objs {
				var parts []string
				for _, col := range goYCSBColumns {
					if v, ok := o[col]; ok {
						parts = append(parts, col+": "+v)
					}
				}
				rowsIn = append(rowsIn, [2]string{o["Operation"], strings.Join(parts, ", ")})
			}
		default:
			if op, rest, ok := goYCSBSplitRow(line); ok {
				rowsIn = append(rowsIn, [2]string{op, rest})
			}
		}
		for _, ri := range rowsIn {
			op := ri[0]
			if !final && lastOp[op] {
				// The same operation again: a new interval block began.
				// go-ycsb's figures are cumulative, so the newer block
				// supersedes the older one.
				block = block[:0]
				lastOp = map[string]bool{}
			}
			lastOp[op] = true
			rows, err := goYCSBFields(op, ri[1], params, source(name, lr.Line()))
			if err != nil {
				return syntaxf(name, lr.Line(), "%s row: %v", op, err)
			}
			block = append(block, rows...)
		}
	}
	if err := lr.Err(); err != nil {
		return err
	}
	return flushBlock()
}

// goYCSBSplitRow splits "READ   - Takes(s): 10.0, Count: ..." into the
// operation and its fields.
func goYCSBSplitRow(line string) (op, rest string, ok bool) {
	i := strings.Index(line, " - ")
	if i <= 0 {
		return "", "", false
	}
	op, rest = strings.TrimSpace(line[:i]), line[i+3:]
	if op == "" || !strings.Contains(rest, "Takes(s):") && !strings.Contains(rest, "Count:") {
		return "", "", false
	}
	for j, c := range op {
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || j > 0 && c >= '0' && c <= '9') {
			return "", "", false
		}
	}
	return op, rest, true
}

// goYCSBColumns are go-ycsb's column names in its header order.
var goYCSBColumns = []string{"Takes(s)", "Count", "OPS", "Avg(us)", "Min(us)", "Max(us)", "50th(us)", "90th(us)", "95th(us)", "99th(us)", "99.9th(us)", "99.99th(us)"}

// goYCSBColumn maps a table header cell (upper-cased by the table writer:
// "TAKES(S)", "99.9TH(US)") back to go-ycsb's column name.
func goYCSBColumn(cell string) string {
	for _, c := range goYCSBColumns {
		if strings.EqualFold(c, cell) {
			return c
		}
	}
	return cell
}

// goYCSBCells splits a table row "| READ | 10.0 | ... |" into its cells.
func goYCSBCells(row string) []string {
	parts := strings.Split(strings.Trim(row, "|"), "|")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}

// goYCSBFields turns "Takes(s): 10.0, Count: 472177, OPS: 47412.4, ..." into
// results.
func goYCSBFields(op, s string, params bench.Params, src string) ([]*bench.Result, error) {
	var out []*bench.Result
	count := 1
	for _, part := range strings.Split(s, ",") {
		k, vs, ok := strings.Cut(strings.TrimSpace(part), ":")
		if !ok {
			if strings.TrimSpace(part) == "" {
				continue
			}
			return nil, fmt.Errorf("expected \"Name: value\", got %q", strings.TrimSpace(part))
		}
		k = strings.TrimSpace(k)
		v, err := parseFloat(strings.TrimSpace(vs))
		if err != nil {
			return nil, fmt.Errorf("%s: %v", k, err)
		}
		metric, unit := k, ""
		if i := strings.IndexByte(k, '('); i > 0 && strings.HasSuffix(k, ")") {
			metric, unit = k[:i], k[i+1:len(k)-1]
		}
		better := bench.LowerIsBetter
		n := 1
		switch {
		case metric == "Count":
			unit, better = "count", bench.HigherIsBetter
			count = int(v)
		case metric == "OPS":
			metric, unit, better = "Throughput", "ops/s", bench.HigherIsBetter
		case metric == "Takes":
			metric = "Time"
		case metric == "Avg":
			metric, n = "AverageLatency", count
		case metric == "Min" || metric == "Max":
			metric, n = metric+"Latency", count
		case strings.HasSuffix(metric, "th"):
			p, err := strconv.ParseFloat(strings.TrimSuffix(metric, "th"), 64)
			if err != nil {
				return nil, fmt.Errorf("percentile %q: expected a number before \"th\"", k)
			}
			metric, n = percentileMetric(p, false), count
		}
		if unit == "" {
			unit = "count"
		}
		out = append(out, &bench.Result{
			Benchmark: op,
			Params:    params,
			Metric:    metric,
			Unit:      unit,
			Better:    better,
			Summary:   summary(v, 0, 0, n),
			Source:    src,
		})
	}
	return out, nil
}
