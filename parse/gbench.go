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

// GBench reads Google Benchmark's console output, all header generations:
//
//	Benchmark                  Time(ns)    CPU(ns) Iterations      (2015)
//	BM_memcpy/8            36 ns         36 ns   19101577   211.669MB/s
//	BM_x/MaxLevel:3     1299 ns   1301 ns   538976 bytes_per_second=11.5877G/s
//
// Rows become samples of Metric "real_time" (the Time column) and
// "cpu_time" in the printed unit, named and parametrized as in GBenchJSON.
// User counters "k=v" with SI suffixes ("11.5877G/s", "1.2Gi/s") are scaled
// to base units (bytes_per_second in B/s, whose prefixes gbench always
// computes in powers of 1024; items_per_second in items/s); the older byte
// rate glued to its unit ("211.669MB/s") becomes bytes_per_second in B/s
// too; tabular counters (--benchmark_counters_tabular) are read by
// their header names. Aggregate rows (_mean, _median, _stddev, _cv) are
// skipped, and so is tools/compare.py output (its rows are ratios, not
// measurements). Context lines (Run on, CPU Caches, Load Average,
// warnings) are ignored.
type GBench struct{}

// Name returns "gbench".
func (GBench) Name() string { return "gbench" }

var (
	gbHeader = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)^Benchmark\s+Time(\(\w+\))?\s+CPU(\(\w+\))?\s+Iterations(.*)$`)
	})
	gbRunOn = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^Run on \(\d+ X [\d.]+ MHz CPU`) })
	gbGlued = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([\d.]+)([A-Za-z]+/s)$`) })
	gbAggr  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`_(mean|median|stddev|cv|BigO|RMS)$`) })
	gbUnits = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)^\S+\s+[\d.]+ (?:ns|us|ms|s)\s+[\d.]+ (?:ns|us|ms|s)\s+\d+`)
	})
	gbCmpRow = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^\S+\s+[-+]\d+\.\d{4}\s+[-+]\d+\.\d{4}\s+`) })
)

// Sniff looks for the table header or the "Run on" context line.
// The literal checks before each expression are conditions of its match
// that cost far less than running it over the whole head.
func (GBench) Sniff(head []byte) int {
	if bytes.Contains(head, []byte("Iterations")) && gbHeader().Match(head) {
		return 90
	}
	if bytes.Contains(head, []byte("Run on (")) && gbRunOn().Match(head) || hasTimeColumn(head) && gbUnits().Match(head) {
		return 70
	}
	if hasSignedAfterSpace(head) && gbCmpRow().Match(head) {
		return 30
	}
	return 0
}

// hasTimeColumn reports whether head holds a number, a space, a time unit
// of gbench's columns and a space ("12.5 ns "), as gbUnits needs.
func hasTimeColumn(head []byte) bool {
	for i := 1; i+2 < len(head); i++ {
		if head[i] != ' ' || !isDigitOrDot(head[i-1]) {
			continue
		}
		rest := head[i+1:]
		if len(rest) >= 2 && rest[0] == 's' && isSpaceByte(rest[1]) {
			return true
		}
		if len(rest) >= 3 && (rest[0] == 'n' || rest[0] == 'u' || rest[0] == 'm') && rest[1] == 's' && isSpaceByte(rest[2]) {
			return true
		}
	}
	return false
}

// hasSignedAfterSpace reports whether head holds white space, a sign and a
// digit (" -0.0123"), as gbCmpRow needs.
func hasSignedAfterSpace(head []byte) bool {
	for i := 0; i+2 < len(head); i++ {
		if isSpaceByte(head[i]) && (head[i+1] == '-' || head[i+1] == '+') && head[i+2] >= '0' && head[i+2] <= '9' {
			return true
		}
	}
	return false
}

func isDigitOrDot(c byte) bool { return c >= '0' && c <= '9' || c == '.' }

// Parse reads gbench console output.
func (GBench) Parse(ctx context.Context, r io.Reader, name string, emit func(*bench.Result) error) error {
	emit = checked(ctx, name, emit)
	lr := newLineReader(r)
	inTable := false
	emitted, cmpLine := 0, 0
	countEmit := emit
	emit = func(r *bench.Result) error { emitted++; return countEmit(r) }
	defUnit := "ns"
	var tabular []string
	for lr.next(ctx) {
		line := lr.Text()
		if m := findIf(strings.HasPrefix(line, "Benchmark"), gbHeader(), line); m != nil {
			if strings.Contains(m[3], "Old") {
				inTable = false // compare.py
				continue
			}
			inTable = true
			defUnit = "ns"
			if m[1] != "" {
				defUnit = strings.Trim(m[1], "()")
			}
			tabular = nil
			if rest := strings.Fields(m[3]); len(rest) > 0 && rest[0] != "UserCounters..." {
				tabular = rest
			}
			continue
		}
		if strings.HasPrefix(line, "Comparing ") {
			inTable = false
			for lr.next(ctx) { // compare.py's table runs to the next run
				if gbHeader().MatchString(lr.Text()) && !strings.Contains(lr.Text(), "Old") {
					inTable = true
					break
				}
			}
			continue
		}
		if cmpLine == 0 && !inTable && gbCmpRow().MatchString(line) {
			cmpLine = lr.Line()
		}
		m := gbRowOf(line)
		if m == nil || !inTable && (m[3] == "" || m[5] == "") {
			// Outside a table only rows whose times carry units are
			// taken: an excerpt without its header.
			continue
		}
		full := m[1]
		if gbAggr().MatchString(full) {
			continue
		}
		base, params := gbenchName(full)
		src := source(name, lr.Line())
		out := func(metric, unit string, better bench.Direction, v float64) error {
			return emit(&bench.Result{Benchmark: base, Params: params, Metric: metric, Unit: unit, Better: better, Samples: []float64{v}, Source: src})
		}
		for _, c := range []struct {
			metric, v, unit string
		}{{"real_time", m[2], m[3]}, {"cpu_time", m[4], m[5]}} {
			v, err := parseFloat(c.v)
			if err != nil {
				warnf(ctx, name, lr.Line(), "%s %s: %v; skipped", full, c.metric, err)
				continue
			}
			u := c.unit
			if u == "" {
				u = defUnit
			}
			if err := out(c.metric, u, bench.LowerIsBetter, v); err != nil {
				return err
			}
		}
		rest := strings.Fields(m[7])
		for i, f := range rest {
			k, vs, ok := strings.Cut(f, "=")
			if !ok && i < len(tabular) {
				k, vs, ok = tabular[i], f, true
			}
			if !ok {
				if g := gbGlued().FindStringSubmatch(f); g != nil && strings.HasSuffix(g[2], "B/s") {
					// Before user counters, SetBytesProcessed printed
					// "211.669MB/s", in powers of 1024.
					v, rest, err := siValueBase(g[1]+g[2], true)
					if err == nil && rest == "B/s" {
						if err := out("bytes_per_second", "B/s", bench.HigherIsBetter, v); err != nil {
							return err
						}
						continue
					}
				}
				if g := gbGlued().FindStringSubmatch(f); g != nil {
					v, err := parseFloat(g[1])
					if err == nil {
						if err := out("rate", g[2], bench.HigherIsBetter, v); err != nil {
							return err
						}
					}
					continue
				}
				continue
			}
			// Google Benchmark scales bytes_per_second by 1024 whether it
			// prints "G/s" (up to 1.7) or "Gi/s" (1.8+); other counters
			// by 1000 unless marked "i".
			v, unitSuffix, err := siValueBase(vs, k == "bytes_per_second")
			if err != nil {
				warnf(ctx, name, lr.Line(), "%s counter %s: %v; skipped", full, k, err)
				continue
			}
			cu, better := gbenchCounterUnit(k)
			switch {
			case unitSuffix == "%":
				cu = "%"
			case unitSuffix == "/s" && cu == "count":
				// A counter flagged kIsRate prints "/s".
				cu, better = "1/s", bench.HigherIsBetter
			}
			if err := out(k, cu, better, v); err != nil {
				return err
			}
		}
	}
	if err := lr.Err(); err != nil {
		return err
	}
	if emitted == 0 && cmpLine > 0 {
		return syntaxf(name, cmpLine, "this is tools/compare.py output, ratios between two runs rather than measurements; parse each run's own output instead")
	}
	return nil
}

// isGBTimeUnit reports whether s is a unit of gbench's Time and CPU
// columns.
func isGBTimeUnit(s string) bool {
	switch s {
	case "ns", "us", "ms", "s":
		return true
	}
	return false
}

// gbRowOf splits a console row, "name time [unit] cpu [unit] iterations
// rest", into the layout of a regexp submatch: m[1] name, m[2] time, m[3]
// its unit, m[4] cpu, m[5] its unit, m[6] iterations, m[7] the rest. It
// returns nil for other lines.
func gbRowOf(line string) []string {
	f := strings.Fields(line)
	if len(f) < 4 {
		return nil
	}
	m := []string{line, f[0], "", "", "", "", "", ""}
	i := 1
	for _, slot := range []int{2, 4} {
		if i >= len(f) || !gbNumber(f[i]) {
			return nil
		}
		m[slot] = f[i]
		i++
		if i < len(f) && isGBTimeUnit(f[i]) {
			m[slot+1] = f[i]
			i++
		}
	}
	if i >= len(f) || !isDigits(f[i]) {
		return nil
	}
	m[6] = f[i]
	m[7] = " " + strings.Join(f[i+1:], " ")
	return m
}

// gbNumber reports whether s is a plain decimal number, as gbench prints
// times ("36", "2.74", "1.2e+03").
func gbNumber(s string) bool {
	if s == "" || s[0] < '0' || s[0] > '9' {
		return false
	}
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

// siValue reads "11.5877G/s", "1.2Gi", "42", "3.5%" into a base-unit value
// and what followed the number and prefix ("/s", "%", ""): k, M, G, T, P
// are powers of 1000, Ki, Mi, Gi... powers of 1024.
func siValue(s string) (float64, string, error) { return siValueBase(s, false) }

// siValueBase is siValue, with k, M, G... read as powers of 1024 when
// binary is set.
func siValueBase(s string, binary bool) (float64, string, error) {
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.' || s[i] == '-' || s[i] == '+' || s[i] == 'e' && i > 0) {
		i++
	}
	v, err := parseFloat(s[:i])
	if err != nil {
		return 0, "", err
	}
	rest := s[i:]
	mult := 1.0
	if len(rest) > 0 {
		base := 1000.0
		if binary {
			base = 1024
		}
		p := rest[0]
		consumed := 0
		if idx := strings.IndexByte("kKMGTP", p); idx >= 0 {
			consumed = 1
			if len(rest) > 1 && rest[1] == 'i' {
				base, consumed = 1024, 2
			}
			exp := map[byte]int{'k': 1, 'K': 1, 'M': 2, 'G': 3, 'T': 4, 'P': 5}[p]
			for j := 0; j < exp; j++ {
				mult *= base
			}
		} else if strings.HasPrefix(rest, "m") && !strings.HasPrefix(rest, "ms") {
			mult, consumed = 1e-3, 1
		} else if strings.HasPrefix(rest, "u") {
			mult, consumed = 1e-6, 1
		} else if strings.HasPrefix(rest, "n") && !strings.HasPrefix(rest, "ns") {
			mult, consumed = 1e-9, 1
		}
		rest = rest[consumed:]
	}
	return v * mult, rest, nil
}
