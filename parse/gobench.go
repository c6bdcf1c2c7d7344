package parse

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/perf/benchunit"

	"github.com/perfbot/perfbot/bench"
)

// GoBench reads the Go benchmark format written by `go test -bench`, with
// its configuration and unit metadata lines, following the format's
// specification (golang.org/design/14313-benchmark-format) as x/perf's
// benchfmt reads it.
//
// Each benchmark line becomes one Result per metric, holding one sample;
// repeated lines (-count N) share a Result.Key, by which consumers gather
// their samples.
// Units are kept as Go prints them (ns/op, B/op, allocs/op, MB/s); a unit
// metadata line "Unit x better=higher" sets the direction.
//
// Values that were not measured are dropped with a warning naming the file
// and line: NaN, infinities, numbers beyond float64's range (1e400), and
// negative times, sizes, allocation counts and rates. A negative value of
// another unit (a custom metric such as a score difference) is kept, with
// a warning. A line whose iteration count is not a positive integer is
// skipped with a warning.
type GoBench struct{}

// Name returns "gobench".
func (GoBench) Name() string { return "gobench" }

var goBenchLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^Benchmark[^\s]*[ \t]+\d+[ \t]+[-+0-9.eE]+ [^\s]+`)
})

// Sniff looks for a benchmark line: a name starting with "Benchmark", an
// iteration count and a value with a unit.
func (GoBench) Sniff(head []byte) int {
	if goBenchLine().Match(head) {
		if bytes.Contains(head, []byte("\ngoos: ")) || bytes.HasPrefix(head, []byte("goos: ")) || bytes.Contains(head, []byte("\npkg: ")) {
			return 100
		}
		return 80
	}
	return 0
}

// Parse reads Go benchmark output.
func (GoBench) Parse(ctx context.Context, r io.Reader, name string, emit func(*bench.Result) error) error {
	return GoBench{}.parse(ctx, r, name, emit, false)
}

// parse is Parse; with transient, every result is emitted in one and the
// same Result, valid only during the call (see Stream).
func (GoBench) parse(ctx context.Context, r io.Reader, name string, emit func(*bench.Result) error, transient bool) error {
	emit = checked(ctx, name, emit)
	g := goBenchReader{
		transient: transient,
		names:     map[string]goName{},
		units:     map[string]goUnit{},
		dirs:      map[string]bench.Direction{},
	}
	lr := newLineReader(r)
	for lr.nextBytes(ctx) {
		line := lr.Bytes()
		switch {
		case bytes.HasPrefix(line, []byte("Benchmark")):
			if err := g.benchmarkLine(ctx, name, lr.Line(), line[len("Benchmark"):], emit); err != nil {
				return err
			}
		case len(line) > 0 && line[0] == 'U' && isUnitLine(line):
			_, rest := field(line)
			g.unitLine(ctx, name, lr.Line(), rest)
		default:
			if key, val, ok := configLine(line); ok && string(key) == "pkg" {
				if string(val) != g.group {
					g.group = string(val)
				}
			}
		}
	}
	if err := lr.Err(); err != nil {
		return fmt.Errorf("%s:%d: %w", name, lr.Line(), err)
	}
	return nil
}

// goBenchReader is the state of one Go benchmark input: the current
// package and unit metadata, and interned names and units, so that the
// results of repeated lines share their strings.
type goBenchReader struct {
	transient bool
	reused    sampleResult
	group     string
	names     map[string]goName
	units     map[string]goUnit
	// dirs holds the "better" unit metadata, by tidied unit.
	dirs map[string]bench.Direction
}

// goName is a benchmark name split into name and parameters.
type goName struct {
	bench  string
	params bench.Params
}

// goUnit is an interned unit with what its class says about its values.
type goUnit struct {
	unit   string
	tidied string
	// nonNegative is true for units whose values cannot be negative:
	// times, sizes, counts per op, rates.
	nonNegative bool
	// better is bench.DirectionOf(unit), for units no Unit line sets.
	better bench.Direction
}

// sampleResult holds a result and its single sample in one allocation.
type sampleResult struct {
	r bench.Result
	v [1]float64
}

func (g *goBenchReader) name(raw []byte) goName {
	if n, ok := g.names[string(raw)]; ok {
		return n
	}
	full := string(raw)
	b, params := splitGoName(strings.TrimPrefix(full, "Benchmark"))
	n := goName{bench: b, params: params}
	g.names[full] = n
	return n
}

func (g *goBenchReader) unit(raw []byte) goUnit {
	if u, ok := g.units[string(raw)]; ok {
		return u
	}
	s := string(raw)
	_, tidied := benchunit.Tidy(1, s)
	u := goUnit{unit: s, tidied: tidied, better: bench.DirectionOf(s)}
	switch {
	case strings.HasSuffix(s, "/op") && (benchunit.ClassOf(s) == benchunit.Decimal || benchunit.ClassOf(s) == benchunit.Binary) && tidied != s,
		s == "B/op", s == "allocs/op", s == "MB/s", s == "B/s", strings.HasSuffix(tidied, "sec/op"):
		u.nonNegative = true
	}
	g.units[s] = u
	return u
}

// benchmarkLine reads one benchmark line after "Benchmark": the name, the
// iteration count, then value and unit pairs.
func (g *goBenchReader) benchmarkLine(ctx context.Context, file string, line int, b []byte, emit func(*bench.Result) error) error {
	rawName, rest := field(b)
	if len(rest) == 0 {
		// "go test -v" prints the name alone when a benchmark starts;
		// benchmarks that fail or log print other lines starting so.
		return nil
	}
	itersF, rest := field(rest)
	iters, ok := atoi(itersF)
	if !ok {
		if len(itersF) > 0 && (itersF[0] == '-' || itersF[0] == '+') {
			if _, ok := atoi(itersF[1:]); ok {
				warnf(ctx, file, line, "iteration count %s is not positive; line skipped", itersF)
			}
		}
		return nil // a log line that only starts like a benchmark
	}
	if iters <= 0 {
		warnf(ctx, file, line, "iteration count %s is not positive; line skipped", itersF)
		return nil
	}
	// Check the whole line before emitting any of it: a malformed pair
	// makes it a log line, as benchfmt reads it.
	type pair struct {
		val  float64
		unit []byte
		bad  string
	}
	var pairs [8]pair
	ps := pairs[:0]
	for {
		var vf, uf []byte
		vf, rest = field(rest)
		if len(vf) == 0 {
			break
		}
		uf, rest = field(rest)
		if len(uf) == 0 {
			return nil
		}
		v, bad, ok := parseGoValue(vf)
		if !ok {
			return nil
		}
		ps = append(ps, pair{val: v, unit: uf, bad: bad})
	}
	if len(ps) == 0 {
		return nil
	}
	n := g.name(rawName)
	src := ""
	for _, p := range ps {
		u := g.unit(p.unit)
		if p.bad != "" {
			warnf(ctx, file, line, "%s %s: %s; value dropped", n.bench, u.unit, p.bad)
			continue
		}
		if p.val < 0 {
			if u.nonNegative {
				warnf(ctx, file, line, "%s %s: negative value %s cannot be measured; value dropped", n.bench, u.unit, strconv.FormatFloat(p.val, 'g', -1, 64))
				continue
			}
			warnf(ctx, file, line, "%s %s: negative value %s kept", n.bench, u.unit, strconv.FormatFloat(p.val, 'g', -1, 64))
		}
		better, ok := g.dirs[u.tidied]
		if !ok {
			better = u.better
		}
		if src == "" {
			src = source(file, line)
		}
		sr := &g.reused
		if !g.transient {
			sr = &sampleResult{}
		}
		sr.v[0] = p.val
		sr.r = bench.Result{
			Benchmark: n.bench,
			Group:     g.group,
			Params:    n.params,
			Unit:      u.unit,
			Better:    better,
			Samples:   sr.v[:],
			Source:    src,
		}
		// perfbot writes simulated counts as "simulated-instructions/op".
		if su, ok := strings.CutPrefix(u.unit, bench.Simulated+"-"); ok && su != "" {
			sr.r.Metric, sr.r.Unit = bench.Simulated, su
		}
		if err := emit(&sr.r); err != nil {
			return err
		}
	}
	return nil
}

func isUnitLine(line []byte) bool {
	f, _ := field(line)
	return string(f) == "Unit"
}

// unitLine reads a unit metadata line after "Unit": a unit, then key=value
// pairs, of which perfbot uses better=higher and better=lower.
func (g *goBenchReader) unitLine(ctx context.Context, file string, line int, b []byte) {
	uf, rest := field(b)
	if len(uf) == 0 {
		return
	}
	u := g.unit(uf)
	for {
		var f []byte
		f, rest = field(rest)
		if len(f) == 0 {
			return
		}
		k, v, ok := bytes.Cut(f, []byte("="))
		if !ok || string(k) != "better" {
			continue
		}
		var d bench.Direction
		switch string(v) {
		case "higher":
			d = bench.HigherIsBetter
		case "lower":
			d = bench.LowerIsBetter
		default:
			warnf(ctx, file, line, "unit %s: better=%s: want higher or lower; ignored", u.unit, v)
			continue
		}
		if have, ok := g.dirs[u.tidied]; ok && have != d {
			// benchfmt keeps the first setting and reports the
			// conflict.
			warnf(ctx, file, line, "unit %s: better already set to %s; ignored", u.unit, have)
			continue
		}
		g.dirs[u.tidied] = d
	}
}

// parseGoValue reads a measurement. ok is false when f is not a number
// (the line is then not a benchmark line); bad says why a number cannot be
// a measurement (NaN, an infinity, out of float64's range).
func parseGoValue(f []byte) (v float64, bad string, ok bool) {
	if n, ok := atoi(f); ok {
		return float64(n), "", true
	}
	v, err := strconv.ParseFloat(string(f), 64)
	switch {
	case err != nil && errorsIsRange(err):
		return 0, fmt.Sprintf("value %s is out of range", f), true
	case err != nil:
		return 0, "", false
	case math.IsNaN(v):
		return 0, fmt.Sprintf("value %s is not a number", f), true
	case math.IsInf(v, 0):
		return 0, fmt.Sprintf("value %s is infinite", f), true
	}
	return v, "", true
}

func errorsIsRange(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// atoi reads a non-negative decimal integer of at most 18 digits.
func atoi(f []byte) (int64, bool) {
	if len(f) == 0 || len(f) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range f {
		d := c - '0'
		if d > 9 {
			return 0, false
		}
		n = n*10 + int64(d)
	}
	return n, true
}

// field returns the run of non-space bytes that starts b and what follows
// it, without the spaces between, as benchfmt splits a line.
func field(b []byte) (f, rest []byte) {
	j := 0
	for j < len(b) {
		if c := b[j]; c < utf8.RuneSelf {
			if isSpaceByte(c) {
				break
			}
			j++
			continue
		}
		r, n := utf8.DecodeRune(b[j:])
		if unicode.IsSpace(r) {
			break
		}
		j += n
	}
	f, rest = b[:j], b[j:]
	for len(rest) > 0 {
		if c := rest[0]; c < utf8.RuneSelf {
			if !isSpaceByte(c) {
				break
			}
			rest = rest[1:]
			continue
		}
		r, n := utf8.DecodeRune(rest)
		if !unicode.IsSpace(r) {
			break
		}
		rest = rest[n:]
	}
	return f, rest
}

func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r' || c == '\n'
}

// configLine reads a configuration line, "key: value", where key starts
// with a lower-case letter and holds no spaces or upper-case letters.
func configLine(line []byte) (key, val []byte, ok bool) {
	for i := 0; i < len(line); {
		r, n := utf8.DecodeRune(line[i:])
		if i == 0 && !unicode.IsLower(r) {
			return nil, nil, false
		}
		if unicode.IsSpace(r) || unicode.IsUpper(r) {
			return nil, nil, false
		}
		if i > 0 && r == ':' {
			key, val = line[:i], line[i+1:]
			break
		}
		i += n
	}
	if len(key) == 0 {
		return nil, nil, false
	}
	if len(val) == 0 {
		return key, val, true
	}
	for len(val) > 0 && (val[0] == ' ' || val[0] == '\t') {
		val = val[1:]
		ok = true
	}
	return key, val, ok
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
