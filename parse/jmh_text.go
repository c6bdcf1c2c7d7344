package parse

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

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
// table (skipped wherever they fall, even between rows). Each row is a
// Summary (Score, Error at 99.9%, Cnt).
type JMHText struct{}

// Name returns "jmh".
func (JMHText) Name() string { return "jmh" }

var jmhHeader = regexp.MustCompile(`(?m)^\s*(?:\[info\]\s*|\*\s+)?Benchmark\s.*\bMode\s+(?:Cnt|Samples)\s+(?:Score|Mean)\s.*Units\s*$`)

// Sniff looks for the table's header line.
func (JMHText) Sniff(head []byte) int {
	if jmhHeader.Match(head) {
		return 90
	}
	return 0
}

// Parse reads a JMH text table.
func (JMHText) Parse(ctx context.Context, r io.Reader, name string, emit func(*bench.Result) error) error {
	emit = checked(ctx, name, emit)
	lr := newLineReader(r)
	var paramNames []string
	inTable := false
	for lr.next(ctx) {
		line := stripWrapper(lr.Text())
		if strings.HasPrefix(line, "Benchmark") && strings.Contains(line, "Units") && jmhHeader.MatchString(line) {
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
		if err == errApprox {
			warnf(ctx, name, lr.Line(), "%s: score printed only approximately (%s); read as %g", strings.Fields(line)[0], res.Unit, res.Summary.Mean)
		} else if err != nil {
			warnf(ctx, name, lr.Line(), "%v", err)
			continue
		}
		if !ok {
			// Not a row: a log line printed into the table, or text
			// after it. Rows have a mode token and a score in a fixed
			// shape, so the table stays open until the next header.
			continue
		}
		res.Source = source(name, lr.Line())
		if err := emit(res); err != nil {
			return err
		}
	}
	return lr.Err()
}

// jmhRow parses one table row. ok is false when the line is not a row at
// all (the table ended); err says why a row could not be used.
func jmhRow(line string, paramNames []string) (*bench.Result, bool, error) {
	f := strings.Fields(line)
	m := -1
	for i := 1; i < len(f); i++ {
		if jmhModes[f[i]] {
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
		params = append(params, bench.Param{Name: p, Value: f[1+i]})
	}
	params = jmhParams(params, f[m])
	unit := f[len(f)-1]
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
