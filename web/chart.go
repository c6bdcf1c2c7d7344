package web

import (
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/perf/benchmath"

	"github.com/perfbot/perfbot/store"
)

// pointOf turns a stored measurement into a chart point: the median of
// the samples with its distribution-free 95% interval (as benchstat and
// the comparisons compute it), or the tool's mean ± error.
func pointOf(p store.SeriesPoint) Point {
	pt := Point{Run: p.RunID, RunURL: runURL(p.RunID), Finished: p.Finished, Ref: p.Ref, Commit: p.Commit,
		Variant: p.Variant, Baseline: p.Baseline, Centre: p.Centre, Verdict: p.Verdict, DeltaPct: finite(p.DeltaPct)}
	interval := func(lo, hi float64) {
		if !math.IsInf(lo, 0) && !math.IsNaN(lo) && !math.IsInf(hi, 0) && !math.IsNaN(hi) {
			pt.Lo, pt.Hi = &lo, &hi
		}
	}
	switch {
	case len(p.Samples) > 0:
		sorted := slices.Clone(p.Samples)
		slices.Sort(sorted)
		sum := benchmath.AssumeNothing.Summary(benchmath.NewSample(sorted, &benchmath.DefaultThresholds), 0.95)
		pt.Centre, pt.N = sum.Center, len(sorted)
		interval(sum.Lo, sum.Hi)
	case p.Summary != nil:
		pt.Centre, pt.N = p.Summary.Mean, p.Summary.N
		if e := p.Summary.Error; e > 0 {
			interval(p.Summary.Mean-e, p.Summary.Mean+e)
		}
	}
	pt.Centre = finite(pt.Centre)
	if u, err := url.Parse(p.Link); err == nil && (u.Scheme == "https" || u.Scheme == "http") {
		pt.Thread = p.Link
	}
	if p.Target != "" {
		pt.Target = p.Venue + ":" + p.Target
	}
	return pt
}

// Chart is a history drawn as SVG by the template: one dot per point with
// its interval as a bar, the baseline points joined by a line.
type Chart struct {
	W, H   int
	Left   int
	Bottom int
	Line   string
	Points []ChartPoint
	YTicks []Tick
	XTicks []Tick
	// Changes mark the change points: a dashed line between the last
	// point before and the first after.
	Changes []ChartChange
	// Top is the y of the plot's top edge; Base that of its bottom.
	Top, Base float64
}

// ChartChange is a drawn change point.
type ChartChange struct {
	X     float64
	URL   string
	Title string
}

// ChartPoint is one drawn point.
type ChartPoint struct {
	X, Y, YLo, YHi float64
	URL            string
	Title          string
	Baseline       bool
	Verdict        string
}

// Tick is an axis label at a position.
type Tick struct {
	Pos   float64
	Label string
}

// historyChart lays out points, oldest left, and marks the change points
// whose first commit after the change is among them.
func historyChart(points []Point, changes []HistoryChange) *Chart {
	if len(points) == 0 {
		return nil
	}
	c := &Chart{W: 860, H: 320, Left: 70, Bottom: 40}
	top, right := 16.0, 44.0
	plotW := float64(c.W-c.Left) - right
	plotH := float64(c.H-c.Bottom) - top
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range points {
		l, h := bounds(p)
		lo, hi = math.Min(lo, l), math.Max(hi, h)
	}
	if hi-lo < 1e-12*math.Max(1, math.Abs(hi)) {
		lo, hi = lo-math.Max(1, math.Abs(lo))*0.05, hi+math.Max(1, math.Abs(hi))*0.05
	}
	pad := (hi - lo) * 0.08
	lo, hi = lo-pad, hi+pad
	if lo < 0 && lo+pad >= 0 {
		lo = 0
	}
	y := func(v float64) float64 { return top + plotH*(1-(v-lo)/(hi-lo)) }
	x := func(i int) float64 {
		if len(points) == 1 {
			return float64(c.Left) + plotW/2
		}
		return float64(c.Left) + 10 + (plotW-20)*float64(i)/float64(len(points)-1)
	}
	var line []string
	every := max(1, len(points)/10)
	for i, p := range points {
		l, h := bounds(p)
		cp := ChartPoint{X: x(i), Y: y(p.Centre), YLo: y(l), YHi: y(h), URL: p.RunURL, Baseline: p.Baseline, Verdict: p.Verdict}
		cp.Title = fmt.Sprintf("run %d, %s %s: %s %s", p.Run, p.Variant, shortCommit(p.Commit), num(p.Centre), intervalText(p))
		if p.Verdict != "" {
			cp.Title += fmt.Sprintf(", %s %+.1f%%", p.Verdict, p.DeltaPct)
		}
		c.Points = append(c.Points, cp)
		if p.Baseline {
			line = append(line, fmt.Sprintf("%.1f,%.1f", cp.X, cp.Y))
		}
		if i%every == 0 {
			label := shortCommit(p.Commit)
			if label == "" {
				label = "#" + strconv.FormatInt(p.Run, 10)
			}
			c.XTicks = append(c.XTicks, Tick{Pos: cp.X, Label: label})
		}
	}
	if len(line) > 1 {
		c.Line = strings.Join(line, " ")
	}
	c.Top, c.Base = top, top+plotH
	for _, ch := range changes {
		i := slices.IndexFunc(points, func(p Point) bool { return p.Commit == ch.Commit })
		if i < 0 {
			continue
		}
		// Between the last point before the change and the first after.
		j := i
		for j > 0 && points[j-1].Commit == ch.Commit {
			j--
		}
		mx := c.Points[i].X - 6
		if j > 0 {
			mx = (c.Points[j-1].X + c.Points[j].X) / 2
		}
		c.Changes = append(c.Changes, ChartChange{X: mx, URL: ch.RunURL, Title: fmt.Sprintf("change point: %s → %s (%+.1f%%), in %s..%s",
			num(ch.Before), num(ch.After), ch.DeltaPct, shortCommit(ch.CommitBefore), shortCommit(ch.Commit))})
	}
	// Enough digits that neighbouring ticks differ.
	digits := 4
	if span := (hi - lo) / 4; span > 0 {
		if d := int(math.Ceil(math.Log10(math.Max(math.Abs(lo), math.Abs(hi))/span))) + 1; d > digits {
			digits = min(d, 15)
		}
	}
	for i := 0; i <= 4; i++ {
		v := lo + (hi-lo)*float64(i)/4
		c.YTicks = append(c.YTicks, Tick{Pos: y(v), Label: strconv.FormatFloat(v, 'g', digits, 64)})
	}
	return c
}

// bounds are a point's interval, or its centre when it has none.
func bounds(p Point) (lo, hi float64) {
	if p.Lo == nil || p.Hi == nil {
		return p.Centre, p.Centre
	}
	return *p.Lo, *p.Hi
}

// intervalText is "[lo, hi]", or "(no interval)".
func intervalText(p Point) string {
	if p.Lo == nil || p.Hi == nil {
		return "(too few samples for an interval)"
	}
	return "[" + num(*p.Lo) + ", " + num(*p.Hi) + "]"
}

// finite is v, or 0 for NaN and the infinities, which JSON cannot hold.
func finite(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

// num formats a value with four significant digits, whole numbers up to
// a billion in full.
func num(v float64) string {
	if a := math.Abs(v); a >= 1e4 && a < 1e9 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

func shortCommit(c string) string {
	if len(c) > 10 {
		return c[:10]
	}
	return c
}

// fileName makes a variant or file name safe as a download's file name.
func fileName(name string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ':' || r == ' ' || r == '"' || r < 32 || r == 127 {
			return '_'
		}
		return r
	}, name)
}

// pathSegment escapes a name as one path segment.
func pathSegment(s string) string { return url.PathEscape(s) }
