package parse

import (
	"context"
	"io"
	"strings"

	"github.com/perfbot/perfbot/bench"
)

// PerfStatCSV reads `perf stat -x SEP` output, whatever the separator:
//
//	[time,][cpu,[n,]]value,unit,event,[variance,]runtime,pct[,metric,metric-unit]
//
// The value's position is found per line (the first numeric field
// followed, two fields on, by an event name), so interval (-I) and per-CPU
// (-A, --per-core) columns are handled; the CPU becomes param "cpu".
// "<not supported>" and "<not counted>" rows are skipped with a warning.
// Benchmark, unit and samples follow PerfStat; with -r the variance
// field after the event ("0.48%", the relative standard error of the mean)
// gives a Summary with Confidence 0.6827.
type PerfStatCSV struct{}

// Name returns "perf-stat-csv".
func (PerfStatCSV) Name() string { return "perf-stat-csv" }

var perfSeps = []byte{',', ';', '\'', '\t', '|', ':', ' '}

// Sniff looks for lines that split into a perf stat record.
func (PerfStatCSV) Sniff(head []byte) int {
	for line := range strings.Lines(string(head)) {
		if perfSep(line) != 0 {
			return 75
		}
	}
	return 0
}

// perfSep returns the separator that makes line a perf stat -x record, or 0.
func perfSep(line string) byte {
	line = strings.TrimSpace(line)
	if line == "" || strings.HasPrefix(line, "#") {
		return 0
	}
	var fields [perfFieldsRead]string
	for _, sep := range perfSeps {
		if strings.Count(line, string(sep)) < 4 {
			continue // fewer than five fields
		}
		f := firstFields(fields[:0], line, sep, perfFieldsRead)
		if i := perfValueIndex(f); i >= 0 && perfEventLike(f[i+2]) {
			return sep
		}
	}
	return 0
}

// perfFieldsRead is how many fields of a record perfValueIndex and the
// event check after it read: the value is one of the first four, the
// event two fields on.
const perfFieldsRead = 6

// firstFields appends to dst the first n fields of s between seps, as
// strings.Split returns them (all of them when there are fewer).
func firstFields(dst []string, s string, sep byte, n int) []string {
	for len(dst) < n {
		i := strings.IndexByte(s, sep)
		if i < 0 {
			return append(dst, s)
		}
		dst = append(dst, s[:i])
		s = s[i+1:]
	}
	return dst
}

// perfValueIndex finds the value field of a split record, or -1.
func perfValueIndex(f []string) int {
	for i := 0; i <= 3 && i+2 < len(f); i++ {
		v := strings.TrimSpace(f[i])
		if v == "" {
			continue
		}
		num := strings.HasPrefix(v, "<not ") || isFinite(v)
		e := strings.TrimSpace(f[i+2])
		if isFinite(f[i+1]) || strings.HasPrefix(strings.TrimSpace(f[i+1]), "<not ") {
			continue // the unit field holds a value: the value is further on
		}
		if num && e != "" && !isFinite(e) {
			return i
		}
	}
	return -1
}

// perfEventLike reports whether s looks like an event name.
func perfEventLike(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" || !(s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z') {
		return false
	}
	return !strings.ContainsAny(s, " \"") || strings.Contains(s, "/")
}

// Parse reads perf stat -x output.
func (PerfStatCSV) Parse(ctx context.Context, r io.Reader, name string, emit func(*bench.Result) error) error {
	emit = checked(ctx, name, emit)
	lr := newLineReader(r)
	var sep byte
	for lr.next(ctx) {
		line := strings.TrimSpace(lr.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if sep == 0 {
			if sep = perfSep(line); sep == 0 {
				continue
			}
		}
		f := strings.Split(line, string(sep))
		i := perfValueIndex(f)
		if i < 0 || !perfEventLike(f[i+2]) {
			continue
		}
		event := strings.TrimSpace(f[i+2])
		val := strings.TrimSpace(f[i])
		if strings.HasPrefix(val, "<") {
			warnf(ctx, name, lr.Line(), "%s: %s; skipped", event, val)
			continue
		}
		v, err := parseFloat(val)
		if err != nil {
			warnf(ctx, name, lr.Line(), "%s: %v; skipped", event, err)
			continue
		}
		var params bench.Params
		for _, pre := range f[:i] {
			pre = strings.TrimSpace(pre)
			if strings.HasPrefix(pre, "CPU") || strings.HasPrefix(pre, "S") && strings.Contains(pre, "-") || strings.HasPrefix(pre, "N") && isDigits(pre[1:]) {
				params = bench.Params{{Name: "cpu", Value: pre}}
				break
			}
		}
		unit := strings.TrimSpace(f[i+1])
		if unit == "" {
			unit = perfUnit(event)
		}
		res := &bench.Result{Benchmark: event, Params: params, Unit: unit, Better: bench.DirectionOf(unit), Source: source(name, lr.Line())}
		// With -r, the variance ("0.48%") follows the event.
		pct := ""
		if i+3 < len(f) && strings.HasSuffix(strings.TrimSpace(f[i+3]), "%") {
			pct = strings.TrimSuffix(strings.TrimSpace(f[i+3]), "%")
		}
		perfValue(res, v, pct, 0)
		if err := emit(res); err != nil {
			return err
		}
	}
	return lr.Err()
}
