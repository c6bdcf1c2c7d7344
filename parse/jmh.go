package parse

import (
	"math"
	"strings"

	"github.com/perfbot/perfbot/bench"
)

// isJMHMode reports whether s is a mode token of JMH's tables.
func isJMHMode(s string) bool {
	switch s {
	case "thrpt", "avgt", "sample", "ss", "all":
		return true
	}
	return false
}

// jmhSplitName splits a JMH row label "pkg.Class.method:·gc.alloc.rate"
// into the benchmark name and the secondary metric ("" for the primary
// metric). It accepts the three label forms JMH used: "@name" (<= 1.7),
// "·name" (1.8 to 1.36, including "method·p0.99" in sample mode) and a bare
// "name" (1.37+), and the mangled middle dots of mis-decoded logs ("Â·",
// U+FFFD). Sample-mode percentiles become "p99", "p99.9" and so on.
func jmhSplitName(label string) (string, string) {
	name, sec, ok := strings.Cut(label, ":")
	if !ok {
		return label, ""
	}
	return name, jmhMetricName(sec)
}

// jmhMetricName normalizes a secondary metric label.
func jmhMetricName(sec string) string {
	if i := strings.LastIndex(sec, "·"); i >= 0 {
		sec = sec[i+len("·"):]
	} else if i := strings.LastIndex(sec, "\uFFFD"); i >= 0 {
		sec = sec[i+len("\uFFFD"):]
	}
	sec = strings.TrimLeft(sec, "@")
	if len(sec) > 1 && sec[0] == 'p' && (sec[1] >= '0' && sec[1] <= '9') {
		if v, err := parseFloat(sec[1:]); err == nil && v <= 1 {
			return percentileMetric(v, true)
		}
	}
	return sec
}

// jmhBetter is the direction of a JMH metric. Profiler metrics (gc.*,
// percentiles, stack, perfnorm counters) are lower-is-better whatever their
// unit says (gc.alloc.rate is in MB/sec but a higher rate is worse); IPC is
// higher-is-better; everything else follows its unit.
func jmhBetter(metric, unit string) bench.Direction {
	switch {
	case metric == "":
		return bench.DirectionOf(unit)
	case strings.EqualFold(metric, "ipc"):
		return bench.HigherIsBetter
	case strings.HasPrefix(metric, "gc."), strings.HasPrefix(metric, "p") && len(metric) > 1 && metric[1] >= '0' && metric[1] <= '9',
		strings.EqualFold(metric, "cpi"), strings.Contains(metric, "-misses"), strings.Contains(metric, "cycles"),
		strings.Contains(metric, "instructions"), strings.Contains(metric, "branches"), strings.Contains(metric, "loads"),
		strings.Contains(metric, "stores"):
		return bench.LowerIsBetter
	}
	return bench.DirectionOf(unit)
}

// jmhApprox reads JMH's approximate score "≈ 10⁻⁵" (or "≈ 0"), printed
// when the score is below half the last printed digit: JMH rounds log10 of
// the score to an integer power, so the value is about 10^power; "≈ 0"
// stands for a score of zero (or below).
func jmhApprox(s string) (float64, bool) {
	s = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(s), "≈"))
	if s == "0" {
		return 0, true
	}
	rest, ok := strings.CutPrefix(s, "10")
	if !ok || rest == "" {
		return 0, false
	}
	neg := false
	if r, ok := strings.CutPrefix(rest, "⁻"); ok {
		neg, rest = true, r
	}
	power := 0
	for _, c := range rest {
		d := strings.IndexRune("⁰¹²³⁴⁵⁶⁷⁸⁹", c)
		if d < 0 {
			return 0, false
		}
		power = power*10 + len([]rune("⁰¹²³⁴⁵⁶⁷⁸⁹"[:d]))
		if power > 400 {
			return 0, false
		}
	}
	if neg {
		power = -power
	}
	return math.Pow(10, float64(power)), true
}

// jmhModeName maps the run log's "# Benchmark mode:" text to the table's
// mode token.
func jmhModeName(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	switch {
	case strings.HasPrefix(s, "throughput"):
		return "thrpt"
	case strings.HasPrefix(s, "average"):
		return "avgt"
	case strings.HasPrefix(s, "sampling"):
		return "sample"
	case strings.HasPrefix(s, "single"):
		return "ss"
	}
	if f := strings.Fields(s); len(f) > 0 {
		return f[0]
	}
	return ""
}

// jmhParams appends the mode to a benchmark's parameters.
func jmhParams(params bench.Params, mode string) bench.Params {
	out := make(bench.Params, 0, len(params)+1)
	out = append(out, params...)
	if mode != "" {
		out = append(out, bench.Param{Name: "mode", Value: mode})
	}
	return out
}

// stripWrapper removes the prefixes wrappers put before JMH's lines: sbt's
// "[info] ", a source comment's " * ", a CTest "NN: ".
func stripWrapper(s string) string {
	t := strings.TrimLeft(s, " \t")
	for {
		switch {
		case strings.HasPrefix(t, "[info]"):
			t = strings.TrimLeft(t[len("[info]"):], " \t")
		case strings.HasPrefix(t, "* "), t == "*":
			t = strings.TrimLeft(t[1:], " \t")
		default:
			return t
		}
	}
}
