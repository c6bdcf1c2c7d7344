package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"golang.org/x/perf/benchmath"
	"golang.org/x/perf/benchunit"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/compare"
)

// numberStyle formats the values of one line. Rows measured as samples
// (Go benchmarks) are scaled as benchstat scales them ("617.0n ± 1%");
// rows that carry a tool's own summary (JMH, YCSB, perf stat, single runs)
// keep the tool's digits with thousands separators ("327,336.998 ±
// 10,207.402"), so the figures match what the tool printed.
type numberStyle struct {
	sampled bool
	factor  float64
	scaler  benchunit.Scaler
}

// sampled reports whether a row's values are best scaled as benchstat
// scales them: Go benchmark units ("ns/op", "B/op", "B/s") measured as
// samples rather than given as a tool's summary.
func sampled(row *compare.Row) bool {
	if !strings.HasSuffix(row.Unit, "/op") && row.Unit != "B/s" && row.Unit != "MB/s" {
		return false
	}
	if row.Base != nil && !row.Base.Summarized {
		return true
	}
	for i := range row.Candidates {
		c := &row.Candidates[i]
		if c.Presence != compare.Removed && !c.Summarized {
			return true
		}
	}
	return false
}

func newNumberStyle(row *compare.Row, unit string, factor float64) numberStyle {
	ns := numberStyle{sampled: sampled(row), factor: factor}
	if !ns.sampled {
		return ns
	}
	var centers []float64
	if row.Base != nil {
		centers = append(centers, scaledSummary(row.Base, factor).Center)
	}
	for i := range row.Candidates {
		if c := &row.Candidates[i]; c.Presence != compare.Removed {
			centers = append(centers, scaledSummary(&c.Cell, factor).Center)
		}
	}
	ns.scaler = benchunit.CommonScale(centers, benchunit.ClassOf(unit))
	return ns
}

// cell formats a cell's centre with its interval.
func (ns numberStyle) cell(c *compare.Cell) string {
	f := ns.factor
	if ns.sampled {
		s := scaledSummary(c, f)
		v := ns.scaler.Format(s.Center)
		if extreme(s.Center) {
			v = scientific(s.Center)
		}
		if c.N <= 1 && !c.Summarized {
			return v
		}
		return v + " ± " + s.PctRangeString()
	}
	v := plainNumber(c.Center * f)
	switch {
	case c.Summary != nil && c.Summary.Error > 0 && !math.IsNaN(c.Summary.Error):
		return v + " ± " + plainNumber(c.Summary.Error*f)
	case c.Summary == nil && c.N > 1 && !math.IsInf(c.Lo, 0) && !math.IsInf(c.Hi, 0) && c.Center != 0:
		s := benchmath.Summary{Center: c.Center, Lo: c.Lo, Hi: c.Hi}
		return v + " ± " + s.PctRangeString()
	}
	return v
}

// scaledSummary is a cell's summary in the display unit. With samples it
// is recomputed from the scaled samples, as benchstat computes it from
// tidied values, so that the printed digits agree with benchstat's even
// where scaling and taking the median do not commute in floating point.
func scaledSummary(c *compare.Cell, factor float64) benchmath.Summary {
	if len(c.Samples) > 0 && factor != 1 {
		vals := make([]float64, len(c.Samples))
		for i, v := range c.Samples {
			vals[i] = v * factor
		}
		return benchmath.AssumeNothing.Summary(benchmath.NewSample(vals, &benchmath.DefaultThresholds), 0.95)
	}
	return benchmath.Summary{Center: c.Center * factor, Lo: c.Lo * factor, Hi: c.Hi * factor}
}

// plain formats a single value (a geomean) in the line's style.
func (ns numberStyle) plain(v float64) string {
	if ns.sampled {
		if extreme(v * ns.factor) {
			return scientific(v * ns.factor)
		}
		return ns.scaler.Format(v * ns.factor)
	}
	return plainNumber(v * ns.factor)
}

// extreme reports whether v lies beyond what SI prefixes write sensibly
// (benchunit's scaler would print 1e308 seconds as a 300-digit number of
// T), or is not a number at all.
func extreme(v float64) bool {
	a := math.Abs(v)
	return math.IsNaN(v) || math.IsInf(v, 0) || a >= 1e15 || (a != 0 && a < 1e-15)
}

// scientific writes v in scientific notation with four significant
// digits: "1.100e+299".
func scientific(v float64) string {
	if s, ok := nonFinite(v); ok {
		return s
	}
	return strconv.FormatFloat(v, 'e', 3, 64)
}

// nonFinite writes NaN and the infinities as a reader expects them ("NaN",
// "∞", "-∞"); ok is false for a finite v.
func nonFinite(v float64) (s string, ok bool) {
	switch {
	case math.IsNaN(v):
		return "NaN", true
	case math.IsInf(v, 1):
		return "∞", true
	case math.IsInf(v, -1):
		return "-∞", true
	}
	return "", false
}

// plainNumber writes v with at most three decimals, as JMH prints scores,
// and commas between thousands: 421940.9 -> "421,940.9", 327336.998 ->
// "327,336.998", 79614165 -> "79,614,165". Very small values keep three
// significant digits.
func plainNumber(v float64) string {
	if s, ok := nonFinite(v); ok {
		return s
	}
	switch {
	case v == 0:
		return "0"
	case math.Abs(v) < 0.001:
		return strconv.FormatFloat(v, 'g', 3, 64)
	case math.Abs(v) >= 1e18:
		return strconv.FormatFloat(v, 'g', 6, 64)
	}
	s := strconv.FormatFloat(v, 'f', -1, 64)
	if dot := strings.IndexByte(s, '.'); dot >= 0 && len(s)-dot-1 > 3 {
		s = strconv.FormatFloat(v, 'f', 3, 64)
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	intPart, frac, hasFrac := strings.Cut(s, ".")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, r := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if hasFrac {
		b.WriteByte('.')
		b.WriteString(frac)
	}
	return b.String()
}

// formatDelta is the change of the centre in percent. Go benchmark rows
// follow benchstat: "~" when the change is not significant. Rows of tool
// summaries (often one run a side) always show the change, which the
// verdict beside it qualifies, and a tenfold rise reads as a ratio
// ("571.5x" rather than "+57051.38%"). A change from zero has no percent:
// it reads as the difference in the row's unit ("+8 B/op", "+1 alloc").
func formatDelta(base *compare.Cell, c *compare.Candidate, unit string, benchstatStyle bool) string {
	switch {
	case base == nil || c.Presence != compare.Both:
		return ""
	case benchstatStyle && !c.Significant:
		return "~"
	case base.Center == c.Center:
		return "0.00%"
	case base.Center == 0:
		return absoluteDelta(c.Center-base.Center, unit)
	case !benchstatStyle && c.Ratio >= 10:
		return plainNumber(math.Round(c.Ratio*10)/10) + "x"
	}
	return fmt.Sprintf("%+.2f%%", c.DeltaPct)
}

// absoluteDelta writes a difference with its unit: "+8 B/op", "+1 alloc",
// "-3 allocs", "+0.5 s".
func absoluteDelta(d float64, unit string) string {
	v := plainNumber(math.Abs(d))
	sign := "+"
	if d < 0 {
		sign = "-"
	}
	switch unit {
	case "allocs/op", "allocs":
		if v == "1" {
			return sign + "1 alloc"
		}
		return sign + v + " allocs"
	case "", "count":
		return sign + v
	}
	return sign + v + " " + unit
}

// formatRatio is how many times better the candidate is, in the better
// direction: 837 s -> 228 s is "3.7x", 100 -> 80 ops/s is "0.8x".
func formatRatio(base *compare.Cell, c *compare.Candidate, better bench.Direction) string {
	if base == nil || c.Presence != compare.Both || base.Center <= 0 || c.Center <= 0 {
		return ""
	}
	r := c.Center / base.Center
	if better == bench.LowerIsBetter {
		r = base.Center / c.Center
	}
	switch {
	case r >= 100:
		return fmt.Sprintf("%.0fx", r)
	case r >= 0.1:
		return fmt.Sprintf("%.1fx", r)
	}
	return fmt.Sprintf("%.2gx", r)
}

// formatStat gives the p-value and the counts behind a decision and, with
// mde, the smallest change a row that found none could have found.
func formatStat(base *compare.Cell, c *compare.Candidate, mde bool) string {
	if base == nil || c.Presence != compare.Both {
		return ""
	}
	var b strings.Builder
	switch {
	case c.Test == compare.TestTolerance:
		// Simulated counts: the change is held to a tolerance, not a
		// p-value.
		fmt.Fprintf(&b, "tol=%.2g%% ", c.MDEPct)
	case math.IsNaN(c.P):
		b.WriteString("p=? ")
	case c.P != 0 || c.Test != compare.TestExact:
		fmt.Fprintf(&b, "p=%0.3f ", c.P)
	}
	if base.N == c.N {
		fmt.Fprintf(&b, "n=%d", c.N)
	} else {
		fmt.Fprintf(&b, "n=%d+%d", base.N, c.N)
	}
	// A row that found no change says how large a change it could have
	// found, so that "same" means something.
	if mde && !math.IsNaN(c.P) && (c.Verdict == compare.Same || c.Verdict == compare.Noisy) && c.Test != compare.TestExact && c.Test != compare.TestTolerance && c.Test != "" && c.MDEPct != 0 {
		switch {
		case math.IsInf(c.MDEPct, 1):
			b.WriteString(" mde=∞")
		case c.MDEPct >= 10:
			fmt.Fprintf(&b, " mde=%.0f%%", c.MDEPct)
		default:
			fmt.Fprintf(&b, " mde=%.1f%%", c.MDEPct)
		}
	}
	return b.String()
}

// verdictOf is the word a cell shows.
func verdictOf(c *compare.Candidate) string {
	switch c.Presence {
	case compare.Added:
		return "added"
	case compare.Removed:
		return "removed"
	}
	if c.Verdict == "" {
		return string(compare.Same)
	}
	return string(c.Verdict)
}

// tidyUnit returns the unit benchstat shows for unit ("sec/op" for
// "ns/op") and the factor that converts values into it.
func tidyUnit(unit string) (string, float64) {
	factor, tidied := benchunit.Tidy(1, unit)
	return tidied, factor
}

// metricUnit joins a metric and a unit for a title: "Time (s)".
func metricUnit(metric, unit string) string {
	switch {
	case metric == bench.Simulated && unit != "":
		return metric + ": " + unit
	case metric == "":
		return unit
	case unit == "":
		return metric
	}
	return metric + " (" + unit + ")"
}
