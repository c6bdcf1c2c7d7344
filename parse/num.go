package parse

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/perfbot/perfbot/bench"
)

// parseFloat reads a finite number. NaN and infinities are errors: a result
// must never carry a value that was not measured.
func parseFloat(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return 0, fmt.Errorf("expected a number, got %q", s)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("value %q is not a finite number", s)
	}
	return v, nil
}

// isFinite reports whether parseFloat reads s without an error; it builds
// no error message, for callers that only ask.
func isFinite(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" || !strings.ContainsRune("0123456789+-.", rune(s[0])) {
		return false // not a finite number whatever follows
	}
	v, err := strconv.ParseFloat(s, 64)
	return err == nil && !math.IsNaN(v) && !math.IsInf(v, 0)
}

// parseGrouped reads a number that may carry thousands separators, as perf
// stat prints them under LC_NUMERIC: "1,234.5" (English), "1.234,5" and
// "2.015.511" (German and others: dots group, a comma is the decimal mark).
func parseGrouped(s string) (float64, error) {
	s = strings.TrimSpace(s)
	dot, comma := strings.LastIndexByte(s, '.'), strings.LastIndexByte(s, ',')
	if strings.Count(s, ".") > 1 || dot >= 0 && comma > dot {
		s = strings.ReplaceAll(s, ".", "")
		s = strings.Replace(s, ",", ".", 1)
		return parseFloat(s)
	}
	return parseFloat(strings.ReplaceAll(s, ",", ""))
}

// parseLocale reads a number printed in the JVM's default locale: a decimal
// comma ("528,857") is accepted when there is no decimal point.
func parseLocale(s string) (float64, error) {
	s = strings.TrimSpace(s)
	if strings.Contains(s, ",") && !strings.Contains(s, ".") {
		s = strings.Replace(s, ",", ".", 1)
	}
	return parseFloat(s)
}

// percentileMetric names a percentile metric: 0.99 or 99 -> "p99",
// 0.999 -> "p99.9", 1.00 -> "p100". frac says whether v is a fraction (JMH's
// p0.99) rather than a percentage.
func percentileMetric(v float64, frac bool) string {
	if frac {
		v *= 100
	}
	v = math.Round(v*1e6) / 1e6
	return "p" + strconv.FormatFloat(v, 'f', -1, 64)
}

// summary builds a Summary.
func summary(mean, errHalf, conf float64, n int) *bench.Summary {
	return &bench.Summary{Mean: mean, Error: errHalf, Confidence: conf, N: n}
}

// findIf runs re on s only when ok, as a cheap guard in front of a
// regular expression: most lines of a log are not the line a parser
// looks for.
func findIf(ok bool, re *regexp.Regexp, s string) []string {
	if !ok {
		return nil
	}
	return re.FindStringSubmatch(s)
}
