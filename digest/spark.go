package digest

import (
	"fmt"
	"html/template"
	"math"
	"strings"
)

// sparkPoints is how many of a series' newest points a sparkline shows.
const sparkPoints = 24

var sparkBars = []rune("▁▂▃▄▅▆▇█")

// sparkline draws values as a line of block characters, lowest to
// highest; "" when there are fewer than two.
func sparkline(values []float64) string {
	if len(values) > sparkPoints {
		values = values[len(values)-sparkPoints:]
	}
	if len(values) < 2 {
		return ""
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range values {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	var b strings.Builder
	for _, v := range values {
		i := 0
		if hi > lo {
			i = int(math.Round((v - lo) / (hi - lo) * float64(len(sparkBars)-1)))
		}
		b.WriteRune(sparkBars[i])
	}
	return b.String()
}

// trendOf returns the trend drawn for a change point, if any.
func (d *Digest) trendOf(id int64) *Trend {
	for i := range d.Trends {
		if d.Trends[i].ChangePoint == id {
			return &d.Trends[i]
		}
	}
	return nil
}

func (d *Digest) sparkOf(s Shift) string {
	if tr := d.trendOf(s.ID); tr != nil {
		return sparkline(tr.Values)
	}
	return ""
}

// svgChart draws a trend as a small inline SVG line chart: the points,
// the lowest and highest value, and the unit.
func svgChart(tr *Trend) template.HTML {
	if tr == nil || len(tr.Values) < 2 {
		return ""
	}
	const w, h, pad = 320.0, 64.0, 4.0
	values := tr.Values
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range values {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	span := hi - lo
	if span == 0 {
		span = 1
	}
	var pts []string
	for i, v := range values {
		x := pad + float64(i)/float64(len(values)-1)*(w-2*pad)
		y := h - pad - (v-lo)/span*(h-2*pad)
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", x, y))
	}
	// Every text in the SVG is a number or escaped.
	esc := template.HTMLEscapeString
	return template.HTML(fmt.Sprintf(`<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" role="img" aria-label="%s">`+
		`<rect width="100%%" height="100%%" fill="#f6f8fa"/>`+
		`<polyline fill="none" stroke="#2166ac" stroke-width="1.5" points="%s"/>`+
		`<text x="%.0f" y="12" font-size="10" font-family="sans-serif" fill="#57606a" text-anchor="end">%s %s</text>`+
		`<text x="%.0f" y="%.0f" font-size="10" font-family="sans-serif" fill="#57606a" text-anchor="end">%s</text></svg>`,
		w, h, w, h, esc(tr.Title), strings.Join(pts, " "), w-pad, esc(formatValue(hi)), esc(tr.Unit), w-pad, h-pad-2, esc(formatValue(lo))))
}

func formatValue(v float64) string {
	switch a := math.Abs(v); {
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	case a >= 1:
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.3g", v)
}

// ChartOf is the inline SVG chart of a change point's series, or nothing.
func (d *Digest) ChartOf(id int64) template.HTML { return svgChart(d.trendOf(id)) }
