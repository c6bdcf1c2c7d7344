package parse

import (
	"bytes"
	"context"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/perfbot/perfbot/bench"
)

// PerfStat reads the human-readable output of `perf stat`, old and new:
//
//	Performance counter stats for './app' (5 runs):
//	   60,243.87 msec task-clock        #    1.000 CPUs utilized   ( +-  1.38% )
//	  72,124,912,284      cycles        #    1.197 GHz              (38.46%)
//	      8008.478891      cpu-clock (msec)
//	     13.035091229 seconds time elapsed
//
// with thousands separators or none, line numbers pasted in front of each
// line and the header wrapped over several lines (as in mailed or JIRA
// copies), the unit before the event (5.x+) or
// after it ("cpu-clock (msec)", 4.x), event modifiers ("cycles:u"),
// multiplexing percentages, "<not supported>"/"<not counted>" rows
// (skipped with a warning), continuation comment lines, interval mode (-I,
// a leading timestamp: each interval is one sample) and per-CPU columns
// (-A: param "cpu").
//
// The event is the benchmark and the measured command its group; the unit
// is the one printed ("msec"), else "cycles" for cycle events and "count"
// for the other counters. "seconds time elapsed", "seconds user" and
// "seconds sys" become benchmarks "time elapsed", "user" and "sys" in s.
// The "insn per cycle" comment becomes Metric "IPC" of the instructions
// event, higher is better. Without -r each value is one sample; with -r N
// it is a Summary whose Error is perf's "+- x%" (the standard error of the
// mean, so Confidence 0.6827) and N the number of runs.
type PerfStat struct{}

// Name returns "perf-stat".
func (PerfStat) Name() string { return "perf-stat" }

var (
	perfHeader = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`Performance counter stats for (.*?)(?: \((\d+) runs\))?:\s*$`)
	})
	perfTime = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*(?:\d+\s+)?([\d.,]+)(?:\s+\+-\s+([\d.,]+))?\s+seconds\s+(time elapsed|user|sys)\s*(?:\(\s*\+-\s*([\d.]+)%\s*\))?\s*$`)
	})
	perfPct    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\(\s*\+-\s*([\d.]+)%\s*\)`) })
	perfIPC    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`#\s+([\d.]+)\s+insns? per cycle`) })
	perfSniffI = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)^\s*\d+\.\d+\s+[\d,.]+\s+(?:msec\s+)?(?:task-clock|cpu-clock|context-switches|cycles|instructions|page-faults|cpu-migrations)`)
	})
)

// Sniff looks for perf stat's header or interval rows.
func (PerfStat) Sniff(head []byte) int {
	if bytes.Contains(head, []byte("Performance counter stats for")) {
		return 100
	}
	if hasPerfEventName(head) && perfSniffI().Match(head) {
		return 80
	}
	return 0
}

// hasPerfEventName reports whether head names one of the events
// perfSniffI looks for; the check spares running it over a head without.
func hasPerfEventName(head []byte) bool {
	for _, e := range []string{"task-clock", "cpu-clock", "context-switches", "cycles", "instructions", "page-faults", "cpu-migrations"} {
		if bytes.Contains(head, []byte(e)) {
			return true
		}
	}
	return false
}

// Parse reads perf stat's human output.
func (PerfStat) Parse(ctx context.Context, r io.Reader, name string, emit func(*bench.Result) error) error {
	emit = checked(ctx, name, emit)
	lr := newLineReader(r)
	group := ""
	runs := 0
	header := "" // a header line wrapped onto the next lines
	for lr.next(ctx) {
		line := lr.Text()
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		if header != "" {
			// The header was wrapped: gather it up to its colon.
			header += " " + t
			if m := perfHeader().FindStringSubmatch(header); m != nil || len(header) > 4096 {
				if m != nil {
					group = strings.Trim(m[1], "'")
					runs, _ = strconv.Atoi(m[2])
				}
				header = ""
			}
			continue
		}
		if i := strings.Index(line, "Performance counter stats for "); i >= 0 {
			if m := perfHeader().FindStringSubmatch(line[i:]); m != nil {
				group = strings.Trim(m[1], "'")
				runs, _ = strconv.Atoi(m[2])
			} else {
				header = strings.TrimSpace(line[i:])
			}
			continue
		}
		src := source(name, lr.Line())
		if m := findIf(strings.Contains(line, "seconds"), perfTime(), line); m != nil {
			v, err := parseGrouped(m[1])
			if err != nil {
				warnf(ctx, name, lr.Line(), "%s: %v; skipped", m[3], err)
				continue
			}
			res := &bench.Result{Benchmark: m[3], Group: group, Unit: "s", Better: bench.LowerIsBetter, Source: src}
			perfValue(res, v, m[4], runs)
			if err := emit(res); err != nil {
				return err
			}
			continue
		}
		m := perfRowOf(line)
		if m == nil {
			continue
		}
		event := m[5]
		if strings.HasPrefix(m[3], "<") {
			warnf(ctx, name, lr.Line(), "%s: %s; skipped", event, m[3])
			continue
		}
		v, err := parseGrouped(m[3])
		if err != nil {
			warnf(ctx, name, lr.Line(), "%s: %v; skipped", event, err)
			continue
		}
		unit := m[4]
		if unit == "" {
			unit = m[6]
		}
		if unit == "" {
			unit = perfUnit(event)
		}
		var params bench.Params
		if m[2] != "" {
			params = bench.Params{{Name: "cpu", Value: m[2]}}
		}
		rest := m[7]
		pct := ""
		if pm := findIf(strings.Contains(rest, "+-"), perfPct(), rest); pm != nil {
			pct = pm[1]
		}
		res := &bench.Result{Benchmark: event, Group: group, Params: params, Unit: unit, Better: bench.DirectionOf(unit), Source: src}
		perfValue(res, v, pct, runs)
		if err := emit(res); err != nil {
			return err
		}
		if im := findIf(strings.Contains(rest, " per cycle"), perfIPC(), rest); im != nil {
			if ipc, err := parseFloat(im[1]); err == nil {
				ires := &bench.Result{Benchmark: event, Group: group, Params: params, Metric: "IPC", Unit: "insn per cycle", Better: bench.HigherIsBetter, Source: src}
				if runs > 1 {
					ires.Summary = summary(ipc, 0, 0, runs)
				} else {
					ires.Samples = []float64{ipc}
				}
				if err := emit(ires); err != nil {
					return err
				}
			}
		}
	}
	return lr.Err()
}

// isPerfUnit reports whether s is a unit perf prints before an event
// name.
func isPerfUnit(s string) bool {
	switch s {
	case "msec", "ns", "us", "seconds", "Joules", "MiB", "Watts":
		return true
	}
	return false
}

// perfRowOf splits a counter row, "[time] [cpu [n]] value [unit] event
// [(msec)] rest", into the layout of a regexp submatch: m[1] time, m[2]
// cpu, m[3] value ("<not supported>" included), m[4] unit, m[5] event,
// m[6] "msec" from "(msec)", m[7] the rest. It returns nil for other lines.
func perfRowOf(line string) []string {
	m := make([]string, 8)
	m[0] = line
	pos := 0
	next := func() (string, int) { return peekAfter(line, pos) } // the next token and where it ends
	numeric := func(t string) bool {
		if t == "" {
			return false
		}
		for k := 0; k < len(t); k++ {
			c := t[k]
			if !(c >= '0' && c <= '9' || c == ',' || c == '.' || c == '-' && k == 0) {
				return false
			}
		}
		return t[0] != ',' && t[0] != '.'
	}
	valueStart := func(t string) bool { return numeric(t) || t == "<not" }
	tok, end := next()
	if isDigits(tok) {
		// A line number pasted in front ("4019 79,614,165
		// context-switches", from less -N or an editor).
		if t2, e2 := peekAfter(line, end); valueStart(t2) {
			if t3, _ := peekAfter(line, e2); t3 != "" && !numeric(t3) && t3 != "supported>" && t3 != "counted>" || t2 == "<not" {
				pos = end
				tok, end = next()
			}
		}
	}
	if strings.Count(tok, ".") == 1 && !strings.Contains(tok, ",") && numeric(tok) {
		if t2, _ := peekAfter(line, end); valueStart(t2) || perfCPU(t2) {
			m[1], pos = tok, end
			tok, end = next()
		}
	}
	if perfCPU(tok) {
		m[2], pos = tok, end
		tok, end = next()
		if t2, _ := peekAfter(line, end); isDigits(tok) && valueStart(t2) {
			pos = end // the count of aggregated CPUs
			tok, end = next()
		}
	}
	switch {
	case tok == "<not":
		pos = end
		t2, e2 := next()
		if t2 != "supported>" && t2 != "counted>" {
			return nil
		}
		m[3], end = "<not "+t2, e2
	case numeric(tok):
		m[3] = tok
	default:
		return nil
	}
	pos = end
	tok, end = next()
	if isPerfUnit(tok) {
		m[4], pos = tok, end
		tok, end = next()
	}
	if tok == "" || !(tok[0] == '_' || tok[0] >= 'a' && tok[0] <= 'z' || tok[0] >= 'A' && tok[0] <= 'Z') {
		return nil
	}
	m[5], pos = tok, end
	if tok, end = next(); tok == "(msec)" {
		m[6], pos = "msec", end
	}
	m[7] = line[pos:]
	return m
}

// peekAfter returns the token that starts after position i.
func peekAfter(line string, i int) (string, int) {
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	j := i
	for j < len(line) && line[j] != ' ' && line[j] != '\t' {
		j++
	}
	return line[i:j], j
}

// perfCPU reports whether t names a CPU, core, socket or node column of
// -A, --per-core, --per-socket or --per-node.
func perfCPU(t string) bool {
	switch {
	case strings.HasPrefix(t, "CPU") && isDigits(t[3:]):
		return true
	case strings.HasPrefix(t, "N") && isDigits(t[1:]):
		return true
	case strings.HasPrefix(t, "S") && len(t) > 1 && t[1] >= '0' && t[1] <= '9':
		for _, part := range strings.Split(t[1:], "-") {
			if part == "" {
				return false
			}
		}
		return true
	}
	return false
}

// perfValue sets a sample, or with -r a Summary whose error comes from
// perf's relative standard error pct.
func perfValue(res *bench.Result, v float64, pct string, runs int) {
	if runs > 1 || pct != "" {
		s := summary(v, 0, 0, runs)
		if p, err := parseFloat(pct); err == nil {
			s.Error = v * p / 100
			if s.Error < 0 {
				s.Error = -s.Error
			}
			s.Confidence = 0.6827
		}
		res.Summary = s
		return
	}
	res.Samples = []float64{v}
}

// perfUnit is the unit of an event perf printed without one.
func perfUnit(event string) string {
	e := strings.ToLower(event)
	switch {
	case strings.HasPrefix(e, "task-clock"), strings.HasPrefix(e, "cpu-clock"):
		return "msec"
	case strings.Contains(e, "cycles") && !strings.Contains(e, "per"):
		return "cycles"
	}
	return "count"
}
