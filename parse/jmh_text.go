package parse

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/perfbot/perfbot/bench"
)

// JMHText reads the final results table JMH prints at the end of a run:
//
//	Benchmark                (numTasks)  Mode  Cnt    Score    Error  Units
//	TaskStore.getJobKeys          10000  thrpt   5  528.857 ± 278.142  ops/ms
//
// in every version seen in the wild: secondary metrics labelled "@name",
// "·name" or "name", blank Cnt and missing Error for single samples,
// approximate scores ("≈ 10⁻⁵" read as 1e-5, "≈ 0" as 0, with a warning),
// NaN scores (skipped with a warning), the "Score error" column without
// "±" of JMH before 1.5, decimal commas from non-English locales, mangled "±", sbt's
// "[info]" and source comments' " * " prefixes, and log lines around the
// table (skipped wherever they fall, even between rows), and headers and
// rows that a mail client wrapped onto a second line. A parameter shown as
// "N/A" (one that other benchmarks of the run have) is left out. Each row
// is a Summary (Score, Error at 99.9%, Cnt).
type JMHText struct{}

// Name returns "jmh".
func (JMHText) Name() string { return "jmh" }

var jmhHeader = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^\s*(?:\[info\]\s*|\*\s+)?Benchmark\s.*\bMode\s+(?:Cnt|Samples)\s+(?:Score|Mean)\s.*Units\s*$`)
})

var jmhHeaderStart = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^\s*(?:\[info\]\s*|\*\s+)?Benchmark\s.*\bMode\s+(?:Cnt|Samples)\b`)
})

// Sniff looks for the table's header line, whole or wrapped.
func (JMHText) Sniff(head []byte) int {
	// Both headers name the Mode column; the check spares running them
	// over a head without it.
	if !bytes.Contains(head, []byte("Mode")) {
		return 0
	}
	if jmhHeader().Match(head) {
		return 90
	}
	if jmhHeaderStart().Match(head) {
		return 80
	}
	return 0
}

// Parse reads a JMH text table.
func (JMHText) Parse(ctx context.Context, r io.Reader, name string, emit func(*bench.Result) error) error {
	emit = checked(ctx, name, emit)
	lr := newLineReader(r)
	var paramNames []string
	inTable := false
	pending := "" // a header or row cut by a mail client's line wrapping
	pendingLine := 0
	for lr.next(ctx) {
		line := stripWrapper(lr.Text())
		joined, rowLine := false, lr.Line()
		if pending != "" {
			line, pending, joined = pending+" "+strings.TrimSpace(line), "", true
			rowLine = pendingLine
		}
		if !joined && strings.HasPrefix(line, "Benchmark") && strings.Contains(line, " Mode ") && !strings.Contains(line, "Units") {
			pending, pendingLine = line, lr.Line() // "Benchmark (n) Mode Cnt Score" + "Error Units"
			continue
		}
		if strings.HasPrefix(line, "Benchmark") && strings.Contains(line, "Units") && jmhHeader().MatchString(line) {
			inTable = true
			paramNames = paramNames[:0]
			for _, f := range strings.Fields(line)[1:] {
				if f == "Mode" {
					break
				}
				paramNames = append(paramNames, strings.Trim(f, "()"))
			}
			continue
		}
		if !inTable {
			continue
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		res, ok, err := jmhRow(line, paramNames)
		if (!ok || err != nil && err != errApprox) && !joined && jmhRowCut(line, paramNames) {
			pending, pendingLine = line, lr.Line() // the rest of the row is on the next line
			continue
		}
		if err == errApprox {
			warnf(ctx, name, rowLine, "%s: score printed only approximately (%s); read as %g", strings.Fields(line)[0], res.Unit, res.Summary.Mean)
		} else if err != nil {
			warnf(ctx, name, rowLine, "%v", err)
			continue
		}
		if !ok {
			// Not a row: a log line printed into the table, or text
			// after it. Rows have a mode token and a score in a fixed
			// shape, so the table stays open until the next header.
			continue
		}
		res.Source = source(name, rowLine)
		if err := emit(res); err != nil {
			return err
		}
	}
	return lr.Err()
}

// jmhRowCut reports whether line looks like the start of a row that line
// wrapping cut after its score: the mode where the header puts it, and a
// number or a "±" last.
func jmhRowCut(line string, paramNames []string) bool {
	f := strings.Fields(line)
	m := 1 + len(paramNames)
	if len(f) <= m+1 || !isJMHMode(f[m]) {
		return false
	}
	last := f[len(f)-1]
	if _, err := parseLocale(last); err == nil {
		return true
	}
	return last == "±" || strings.HasPrefix(last, "≈")
}

// jmhRow parses one table row. ok is false when the line is not a row at
// all (the table ended); err says why a row could not be used.
func jmhRow(line string, paramNames []string) (*bench.Result, bool, error) {
	f := strings.Fields(line)
	m := -1
	for i := 1; i < len(f); i++ {
		if isJMHMode(f[i]) {
			m = i
			break
		}
	}
	if m < 0 || len(f) < m+3 {
		return nil, false, nil
	}
	if m-1 != len(paramNames) {
		return nil, true, fmt.Errorf("row %q has %d parameter values, the header names %d", f[0], m-1, len(paramNames))
	}
	bname, metric := jmhSplitName(f[0])
	var params bench.Params
	for i, p := range paramNames {
		if v := f[1+i]; v != "N/A" {
			// N/A: the parameter belongs to other benchmarks of the run.
			params = append(params, bench.Param{Name: p, Value: v})
		}
	}
	params = jmhParams(params, f[m])
	unit := f[len(f)-1]
	if _, err := parseLocale(unit); err == nil || unit == "±" {
		return nil, true, fmt.Errorf("%s: the row ends without its unit", f[0])
	}
	mid := f[m+1 : len(f)-1]
	n := 1
	if len(mid) >= 2 && isDigits(mid[0]) {
		if _, err := parseLocale(mid[1]); err == nil || mid[1] == "NaN" || strings.HasPrefix(mid[1], "≈") {
			n, _ = strconv.Atoi(mid[0])
			mid = mid[1:]
		}
	}
	approx := false
	if len(mid) == 2 && mid[0] == "≈" {
		v, ok := jmhApprox(mid[1])
		if !ok {
			return nil, true, fmt.Errorf("%s: cannot read the approximate score %q; row skipped", f[0], strings.Join(mid, " "))
		}
		mid, approx = []string{strconv.FormatFloat(v, 'g', -1, 64)}, true
	}
	if len(mid) > 0 && mid[0] == "NaN" {
		return nil, true, fmt.Errorf("%s: score is NaN (unit %q); row skipped", f[0], unit)
	}
	var score, errHalf, conf float64
	switch len(mid) {
	case 1:
		v, err := parseLocale(mid[0])
		if err != nil {
			return nil, true, fmt.Errorf("%s: score: %v", f[0], err)
		}
		score = v
	case 2:
		// JMH before 1.5: "Score  Score error" (or "Mean  Mean error")
		// columns without a "±".
		v, err1 := parseLocale(mid[0])
		e, err2 := parseLocale(mid[1])
		if err1 != nil || err2 != nil {
			return nil, true, fmt.Errorf("%s: expected \"Score Error\", got %q", f[0], strings.Join(mid, " "))
		}
		score, errHalf, conf = v, e, 0.999
	case 3:
		// score, a "±" in whatever encoding survived, error.
		v, err := parseLocale(mid[0])
		if err != nil {
			return nil, true, fmt.Errorf("%s: score: %v", f[0], err)
		}
		e, err := parseLocale(mid[2])
		if err != nil {
			return nil, true, fmt.Errorf("%s: error: %v", f[0], err)
		}
		score, errHalf, conf = v, e, 0.999
	default:
		return nil, true, fmt.Errorf("%s: expected \"[Cnt] Score [± Error] Units\" after the mode, got %q", f[0], strings.Join(f[m+1:], " "))
	}
	res := &bench.Result{
		Benchmark: bname,
		Params:    params,
		Metric:    metric,
		Unit:      unit,
		Better:    jmhBetter(metric, unit),
		Summary:   summary(score, errHalf, conf, n),
	}
	if approx {
		return res, true, errApprox
	}
	return res, true, nil
}

// errApprox marks a row whose score JMH printed only approximately; the
// row is used, and the caller warns.
var errApprox = errors.New("approximate score")
