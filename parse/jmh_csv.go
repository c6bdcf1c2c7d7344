package parse

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/perfbot/perfbot/bench"
)

// JMHCSV reads the file JMH writes with -rf csv:
//
//	"Benchmark","Mode","Threads","Samples","Score","Score Error (99.9%)","Unit","Param: size"
//
// Scores may use the decimal comma of the JVM's locale ("528,857143", with
// the header's "(99,9%)"); a "NaN" error means none was computed. Each row
// is a Summary.
type JMHCSV struct{}

// Name returns "jmh-csv".
func (JMHCSV) Name() string { return "jmh-csv" }

// Sniff looks for the header row.
func (JMHCSV) Sniff(head []byte) int {
	if bytes.HasPrefix(bytes.TrimSpace(head), []byte(`"Benchmark","Mode","Threads","Samples","Score"`)) {
		return 100
	}
	return 0
}

var jmhCSVConf = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\((\d+(?:[.,]\d+)?)%\)`) })

// Parse reads JMH CSV.
func (JMHCSV) Parse(ctx context.Context, r io.Reader, name string, emit func(*bench.Result) error) error {
	emit = checked(ctx, name, emit)
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.LazyQuotes = true
	col := map[string]int{}
	var params []int
	var paramNames []string
	conf := 0.999
	header := false
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		line, _ := cr.FieldPos(0)
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return syntaxf(name, pe.Line, "JMH CSV: %v", pe.Err)
			}
			return fmt.Errorf("%s: %w", name, err)
		}
		if len(rec) > 0 && rec[0] == "Benchmark" {
			header = false // a header again: files concatenated
			col, params, paramNames, conf = map[string]int{}, nil, nil, 0.999
		}
		if !header {
			if len(rec) == 0 || rec[0] != "Benchmark" {
				return syntaxf(name, line, "expected the JMH CSV header \"Benchmark\",\"Mode\",...")
			}
			for i, h := range rec {
				col[h] = i
				if p, ok := strings.CutPrefix(h, "Param: "); ok {
					params = append(params, i)
					paramNames = append(paramNames, p)
				}
				if strings.HasPrefix(h, "Score Error") {
					col["Score Error"] = i
					if m := jmhCSVConf().FindStringSubmatch(h); m != nil {
						if v, err := parseLocale(m[1]); err == nil {
							conf = v / 100
						}
					}
				}
			}
			for _, c := range []string{"Mode", "Score", "Unit"} {
				if _, ok := col[c]; !ok {
					return syntaxf(name, line, "JMH CSV header lacks the %q column", c)
				}
			}
			header = true
			continue
		}
		get := func(c string) string {
			if i, ok := col[c]; ok && i < len(rec) {
				return rec[i]
			}
			return ""
		}
		bname, metric := jmhSplitName(rec[0])
		unit := get("Unit")
		scoreS := get("Score")
		if scoreS == "NaN" || unit == "---" {
			warnf(ctx, name, line, "%s: score is NaN; row skipped", rec[0])
			continue
		}
		score, err := parseLocale(scoreS)
		if err != nil {
			return syntaxf(name, line, "%s: Score: %v", rec[0], err)
		}
		var errHalf float64
		c := 0.0
		if es := get("Score Error"); es != "" && es != "NaN" {
			if errHalf, err = parseLocale(es); err != nil {
				return syntaxf(name, line, "%s: Score Error: %v", rec[0], err)
			}
			c = conf
		}
		n, _ := strconv.Atoi(get("Samples"))
		var ps bench.Params
		for i, p := range params {
			if p < len(rec) && rec[p] != "" && rec[p] != "N/A" {
				ps = append(ps, bench.Param{Name: paramNames[i], Value: rec[p]})
			}
		}
		res := &bench.Result{
			Benchmark: bname,
			Params:    jmhParams(ps, get("Mode")),
			Metric:    metric,
			Unit:      unit,
			Better:    jmhBetter(metric, unit),
			Summary:   summary(score, errHalf, c, n),
			Source:    source(name, line),
		}
		if err := emit(res); err != nil {
			return err
		}
	}
	if !header {
		return syntaxf(name, 1, "expected the JMH CSV header \"Benchmark\",\"Mode\",...")
	}
	return nil
}
