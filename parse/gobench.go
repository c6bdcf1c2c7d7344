package parse

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"golang.org/x/perf/benchfmt"

	"github.com/perfbot/perfbot/bench"
)

// GoBench reads the Go benchmark format written by `go test -bench`, with
// its configuration and unit metadata lines, through x/perf's benchfmt.
//
// Each benchmark line becomes one Result per metric, holding one sample;
// repeated lines (-count N) share a Result.Key, by which consumers gather
// their samples.
// Units are kept as Go prints them (ns/op, B/op, allocs/op, MB/s); a unit
// metadata line "Unit x better=higher" sets the direction.
type GoBench struct{}

// Name returns "gobench".
func (GoBench) Name() string { return "gobench" }

var goBenchLine = regexp.MustCompile(`(?m)^Benchmark[^\s]*[ \t]+\d+[ \t]+[-+0-9.eE]+ [^\s]+`)

// Sniff looks for a benchmark line: a name starting with "Benchmark", an
// iteration count and a value with a unit.
func (GoBench) Sniff(head []byte) int {
	if goBenchLine.Match(head) {
		if bytes.Contains(head, []byte("\ngoos: ")) || bytes.HasPrefix(head, []byte("goos: ")) || bytes.Contains(head, []byte("\npkg: ")) {
			return 100
		}
		return 80
	}
	return 0
}

// Parse reads Go benchmark output.
func (GoBench) Parse(ctx context.Context, r io.Reader, name string, emit func(*bench.Result) error) error {
	emit = checked(ctx, name, emit)
	rd := benchfmt.NewReader(r, name)
	for rd.Scan() {
		if err := ctx.Err(); err != nil {
			return err
		}
		switch rec := rd.Result().(type) {
		case *benchfmt.SyntaxError:
			// benchfmt reports lines that start like a benchmark but are
			// not one; such lines are common in logs (a test named
			// BenchmarkFoo failing, say) and carry no result.
			continue
		case *benchfmt.Result:
			file, line := rec.Pos()
			group := rec.GetConfig("pkg")
			base := strings.TrimPrefix(string(rec.Name.Full()), "Benchmark")
			benchName, params := splitGoName(base)
			for _, v := range rec.Values {
				unit, val := v.OrigUnit, v.OrigValue
				if unit == "" {
					unit, val = v.Unit, v.Value
				}
				better := bench.DirectionOf(unit)
				if md := rd.Units()[benchfmt.UnitMetadataKey{Unit: v.Unit, Key: "better"}]; md != nil {
					switch md.Value {
					case "higher":
						better = bench.HigherIsBetter
					case "lower":
						better = bench.LowerIsBetter
					}
				}
				res := &bench.Result{
					Benchmark: benchName,
					Group:     group,
					Params:    params,
					Unit:      unit,
					Better:    better,
					Samples:   []float64{val},
					Source:    fmt.Sprintf("%s:%d", file, line),
				}
				if err := emit(res); err != nil {
					return err
				}
			}
		}
	}
	if err := rd.Err(); err != nil {
		var se *benchfmt.SyntaxError
		if errors.As(err, &se) {
			f, l := se.Pos()
			return &SyntaxError{File: f, Line: l, Msg: se.Msg}
		}
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// splitGoName splits "Scan/numTasks=10000/small-8" into the name
// "Scan/small-8" and the parameter numTasks=10000. Sub-benchmark parts of
// the form key=value become parameters; other parts stay in the name, and
// so does the -GOMAXPROCS suffix, as benchstat shows it.
func splitGoName(full string) (string, bench.Params) {
	parts := strings.Split(full, "/")
	if len(parts) == 1 {
		return full, nil
	}
	last := len(parts) - 1
	procs := ""
	if i := strings.LastIndexByte(parts[last], '-'); i > 0 && isDigits(parts[last][i+1:]) {
		procs = parts[last][i:]
		parts[last] = parts[last][:i]
	}
	name := []string{parts[0]}
	var params bench.Params
	for _, p := range parts[1:] {
		if k, v, ok := strings.Cut(p, "="); ok && k != "" {
			params = append(params, bench.Param{Name: k, Value: v})
		} else {
			name = append(name, p)
		}
	}
	return strings.Join(name, "/") + procs, params
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
