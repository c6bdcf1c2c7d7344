package report

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/compare"
)

// Chart limits keep the images small and readable.
const (
	maxCharts   = 6 // images per report
	maxPanels   = 9 // before/after panels per image, 3 a row
	panelWidth  = 2.4 * vg.Inch
	panelHeight = 1.9 * vg.Inch
	sweepWidth  = 5.5 * vg.Inch
	sweepHeight = 3.2 * vg.Inch
	chartDPI    = 96
)

// variantColors are told apart also by readers with red-green colour
// blindness: the baseline grey, candidates blue, orange, purple, teal.
var variantColors = []color.RGBA{
	{0x8c, 0x95, 0x9f, 0xff}, {0x21, 0x66, 0xac, 0xff}, {0xe0, 0x82, 0x14, 0xff},
	{0x76, 0x2a, 0x83, 0xff}, {0x1b, 0x9e, 0x77, 0xff},
}

func variantColor(i int) color.RGBA { return variantColors[i%len(variantColors)] }

// Charts draws a comparison as PNG and SVG images: for each sweep, a line
// per variant over the swept parameter; for each other table, before/after
// bars per benchmark with their intervals as whiskers (changed rows first,
// at most nine a chart).
func Charts(cmp *compare.Comparison) ([]answer.Attachment, error) {
	doc := build(cmp, Options{})
	return charts(cmp, doc, []string{"png", "svg"})
}

// chart is one image to draw.
type chart struct {
	name, title string
	// note says what the chart leaves out; the caption keeps it whole.
	note string
	draw func(c draw.Canvas)
	w, h vg.Length
}

// charts renders the document's charts in each format; the names of the
// images are recorded in doc.Charts (PNG names when PNG is drawn).
func charts(cmp *compare.Comparison, doc *Document, formats []string) ([]answer.Attachment, error) {
	list, err := chartList(cmp, doc)
	if err != nil {
		return nil, err
	}
	var out []answer.Attachment
	for _, ch := range list {
		for _, f := range formats {
			a, err := drawChart(ch, f)
			if err != nil {
				return nil, err
			}
			out = append(out, a)
		}
		if len(formats) > 0 {
			doc.Charts = append(doc.Charts, ChartRef{Name: ch.name + "." + formats[0], Title: strings.TrimSpace(ch.title + " " + paren(ch.note))})
		}
	}
	return out, nil
}

// chartList lays out the document's charts without drawing them.
func chartList(cmp *compare.Comparison, doc *Document) ([]chart, error) {
	var list []chart
	for _, s := range chartSections(doc) {
		if len(list) == maxCharts {
			break
		}
		var ch *chart
		var err error
		switch s.Shape {
		case ShapeSweep:
			ch, err = sweepChart(cmp, s)
		case ShapeWorkloads:
			ch, err = workloadsChart(cmp, s)
		default:
			ch, err = barsChart(cmp, s)
		}
		if err != nil {
			return nil, fmt.Errorf("report: chart of %q: %w", s.Title, err)
		}
		if ch != nil {
			ch.name = fmt.Sprintf("perfbot-chart-%d", len(list)+1)
			list = append(list, *ch)
		}
	}
	return list, nil
}

// drawChart draws one chart in format (png or svg).
func drawChart(ch chart, format string) (answer.Attachment, error) {
	data, err := renderChart(ch, format)
	if err != nil {
		return answer.Attachment{}, fmt.Errorf("report: chart %s: %w", ch.name, err)
	}
	a := answer.Attachment{Name: ch.name + "." + format, Data: data}
	switch format {
	case "png":
		a.ContentType, a.Inline = "image/png", true
	case "svg":
		a.ContentType = "image/svg+xml"
	}
	return a, nil
}

// ChartNames names the PNG images Charts draws for cmp, in order, without
// drawing them; doc is Build(cmp, Options{}) and is not changed.
func ChartNames(cmp *compare.Comparison, doc *Document) ([]string, error) {
	list, err := chartList(cmp, doc)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, ch := range list {
		out = append(out, ch.name+".png")
	}
	return out, nil
}

// Chart draws the one image of Charts named name (perfbot-chart-N.png or
// .svg); doc is Build(cmp, Options{}) and is not changed. It reports false
// when cmp has no such chart.
func Chart(cmp *compare.Comparison, doc *Document, name string) (answer.Attachment, bool, error) {
	base, format, ok := strings.Cut(name, ".")
	if !ok || (format != "png" && format != "svg") {
		return answer.Attachment{}, false, nil
	}
	list, err := chartList(cmp, doc)
	if err != nil {
		return answer.Attachment{}, false, err
	}
	for _, ch := range list {
		if ch.name == base {
			a, err := drawChart(ch, format)
			return a, err == nil, err
		}
	}
	return answer.Attachment{}, false, nil
}

// chartSections are the sections drawn: a units table by the one-unit
// tables it sums up, each in its own unit.
func chartSections(doc *Document) []*Section {
	var out []*Section
	for _, s := range doc.Sections {
		if s.Shape != ShapeUnits {
			out = append(out, s)
			continue
		}
		for _, d := range doc.Details {
			if d.Group == s.Group {
				out = append(out, d)
			}
		}
	}
	return out
}

// captionHeight is the strip above a chart that names it and says what
// was left out.
const captionHeight = 16

// withCaption draws the chart's title in a strip above it.
func withCaption(ch chart, c draw.Canvas) {
	style := draw.TextStyle{Color: color.Black, Font: plot.DefaultFont, Handler: plot.DefaultTextHandler}
	style.Font.Size = vg.Points(9)
	style.XAlign, style.YAlign = draw.XLeft, draw.YTop
	room := int(ch.w / vg.Points(4.6))
	text := ch.title
	if ch.note != "" {
		text = shorten(text, max(8, room-len([]rune(ch.note))-3)) + " (" + ch.note + ")"
	}
	c.FillText(style, vg.Point{X: c.Min.X + vg.Points(4), Y: c.Max.Y - vg.Points(3)}, shorten(text, room))
	ch.draw(draw.Crop(c, 0, 0, 0, -vg.Points(captionHeight)))
}

func renderChart(ch chart, format string) ([]byte, error) {
	var b bytes.Buffer
	ch.h += vg.Points(captionHeight)
	switch format {
	case "png":
		c := vgimg.NewWith(vgimg.UseWH(ch.w, ch.h), vgimg.UseDPI(chartDPI), vgimg.UseBackgroundColor(color.White))
		withCaption(ch, draw.New(c))
		if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&b); err != nil {
			return nil, err
		}
	case "svg":
		c := vgsvg.New(ch.w, ch.h)
		withCaption(ch, draw.New(c))
		if _, err := c.WriteTo(&b); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("unknown image format %q (want png or svg)", format)
	}
	return b.Bytes(), nil
}

// sweepChart draws one line per variant over the swept parameter, with the
// intervals as whiskers; a wide range of the parameter gets a log axis.
func sweepChart(cmp *compare.Comparison, s *Section) (*chart, error) {
	p := plot.New()
	p.Title.Text = shorten(s.Title, 70)
	p.X.Label.Text = s.Params[0]
	p.Y.Label.Text = metricUnit(s.Metric, s.Unit)
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.XOffs = vg.Points(6)
	p.Y.Tick.Marker = plainTicks{}
	p.Add(plotter.NewGrid())
	variants := append([]string{cmp.Base}, cmp.Candidates...)
	minX, maxX := math.Inf(1), math.Inf(-1)
	for vi, v := range variants {
		var xys plotter.XYs
		var errs plotter.YErrors
		for _, l := range s.Lines {
			x, err := strconv.ParseFloat(l.Name, 64)
			if err != nil {
				continue
			}
			cell := cellOf(l.row, v, cmp.Base)
			if cell == nil {
				continue
			}
			xys = append(xys, plotter.XY{X: x, Y: cell.Center})
			errs = append(errs, whisker(cell))
			minX, maxX = math.Min(minX, x), math.Max(maxX, x)
		}
		if len(xys) == 0 {
			continue
		}
		line, points, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, err
		}
		line.Color, points.Color = variantColor(vi), variantColor(vi)
		line.Width = vg.Points(1.5)
		points.Shape = draw.CircleGlyph{}
		p.Add(line, points)
		if hasWhiskers(errs) {
			eb, err := plotter.NewYErrorBars(struct {
				plotter.XYs
				plotter.YErrors
			}{xys, errs})
			if err != nil {
				return nil, err
			}
			eb.Color = variantColor(vi)
			p.Add(eb)
		}
		p.Legend.Add(v, line, points)
	}
	if minX > 0 && maxX/minX >= 16 {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = sweepTicks{lines: s.Lines}
	}
	return &chart{title: captionTitle(s), w: sweepWidth, h: sweepHeight, draw: p.Draw}, nil
}

// workloadsChart draws a panel per metric (throughput, each latency
// percentile) with grouped bars per workload and operation, a bar per
// variant, so a release's workloads can be seen side by side.
func workloadsChart(cmp *compare.Comparison, s *Section) (*chart, error) {
	type group struct {
		title string
		lines []*Line
	}
	var groups []*group
	index := map[string]*group{}
	left := map[string]bool{}
	for _, l := range s.Lines {
		if l.row == nil {
			continue
		}
		key := metricUnit(l.row.Metric, l.row.Unit)
		g := index[key]
		if g == nil {
			if len(groups) == 4 {
				left[key] = true
				continue
			}
			g = &group{title: key}
			index[key] = g
			groups = append(groups, g)
		}
		g.lines = append(g.lines, l)
	}
	if len(groups) == 0 {
		return nil, nil
	}
	variants := append([]string{cmp.Base}, cmp.Candidates...)
	width := vg.Points(7)
	var plots []*plot.Plot
	for gi, g := range groups {
		p := plot.New()
		p.Title.Text = shorten(g.title, 40)
		p.Title.TextStyle.Font.Size = vg.Points(9)
		p.Y.Tick.Marker = plainTicks{}
		p.Y.Tick.Label.Font.Size = vg.Points(7)
		p.X.Tick.Label.Font.Size = vg.Points(7)
		p.Y.Min = 0
		var names []string
		for _, l := range g.lines {
			name := strings.TrimPrefix(l.Workload, "workload")
			if op := l.row.Benchmark; op != "OVERALL" {
				name += "\n" + opShort(op)
			}
			names = append(names, name)
		}
		top := 0.0
		for vi, v := range variants {
			vals := make(plotter.Values, len(g.lines))
			for i, l := range g.lines {
				if c := cellOf(l.row, v, cmp.Base); c != nil {
					vals[i] = c.Center
					top = math.Max(top, c.Center)
				}
			}
			bars, err := plotter.NewBarChart(vals, width)
			if err != nil {
				return nil, err
			}
			bars.Color = variantColor(vi)
			bars.LineStyle.Width = 0
			bars.Offset = vg.Length(float64(vi)-float64(len(variants)-1)/2) * width
			p.Add(bars)
			if gi == 0 {
				p.Legend.Add(v, bars)
			}
		}
		p.Y.Max = top * 1.25 // room for the legend
		p.Legend.Top = true
		p.Legend.TextStyle.Font.Size = vg.Points(8)
		p.NominalX(names...)
		plots = append(plots, p)
	}
	cols := min(2, len(plots))
	rows := (len(plots) + cols - 1) / cols
	grid := make([][]*plot.Plot, rows)
	for i := range grid {
		grid[i] = make([]*plot.Plot, cols)
	}
	for i, p := range plots {
		grid[i/cols][i%cols] = p
	}
	w, h := 3.6*vg.Inch*vg.Length(cols), 2.4*vg.Inch*vg.Length(rows)
	note := ""
	if len(left) > 0 {
		note = fmt.Sprintf("+%d more metrics in the tables", len(left))
	}
	return &chart{title: captionTitle(s), note: note, w: w, h: h, draw: func(c draw.Canvas) {
		tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Points(8), PadY: vg.Points(8),
			PadTop: vg.Points(4), PadBottom: vg.Points(4), PadLeft: vg.Points(4), PadRight: vg.Points(4)}
		canvases := plot.Align(grid, tiles, c)
		for i := range grid {
			for j, p := range grid[i] {
				if p != nil {
					p.Draw(canvases[i][j])
				}
			}
		}
	}}, nil
}

// opShort abbreviates a YCSB operation for a crowded axis.
func opShort(op string) string {
	switch op {
	case "READ":
		return "rd"
	case "UPDATE":
		return "upd"
	case "INSERT":
		return "ins"
	case "SCAN":
		return "scan"
	case "READ-MODIFY-WRITE":
		return "rmw"
	case "DELETE":
		return "del"
	}
	return shorten(strings.ToLower(op), 5)
}

// sweepTicks labels a log axis with the swept values themselves.
type sweepTicks struct{ lines []*Line }

func (t sweepTicks) Ticks(lo, hi float64) []plot.Tick {
	var ts []plot.Tick
	for _, l := range t.lines {
		if x, err := strconv.ParseFloat(l.Name, 64); err == nil && x >= lo && x <= hi {
			ts = append(ts, plot.Tick{Value: x, Label: l.Name})
		}
	}
	return ts
}

// barsChart draws a panel per line, changed lines first: a bar per variant
// with its interval as a whisker, in the line's own unit.
func barsChart(cmp *compare.Comparison, s *Section) (*chart, error) {
	var picked []*Line
	drawable, zero := 0, 0
	for _, changed := range []bool{true, false} {
		for _, l := range s.Lines {
			if l.Changed != changed || l.row == nil {
				continue
			}
			if allZero(l.row) {
				zero++ // an empty panel says nothing
				continue
			}
			drawable++
			if len(picked) < maxPanels {
				picked = append(picked, l)
			}
		}
	}
	if len(picked) == 0 {
		return nil, nil
	}
	variants := append([]string{cmp.Base}, cmp.Candidates...)
	names := distinctLabels(variants, 14)
	var plots []*plot.Plot
	for pi, l := range picked {
		p := plot.New()
		p.Title.Text = panelTitle(l) + "\n" + panelVerdict(l)
		p.Title.TextStyle.Font.Size = vg.Points(9)
		if l.Changed {
			p.Title.TextStyle.Color = verdictColor(l)
		}
		p.Y.Label.Text = shorten(metricUnit(l.row.Metric, l.row.Unit), 24)
		p.Y.Label.TextStyle.Font.Size = vg.Points(8)
		p.Y.Tick.Label.Font.Size = vg.Points(7)
		p.X.Tick.Label.Font.Size = vg.Points(8)
		p.Y.Min = 0
		p.Y.Tick.Marker = plainTicks{}
		top := 0.0
		for vi, v := range variants {
			cell := cellOf(l.row, v, cmp.Base)
			if cell == nil {
				continue
			}
			top = math.Max(top, cell.Center+whisker(cell).High)
			bars, err := plotter.NewBarChart(plotter.Values{cell.Center}, vg.Points(22))
			if err != nil {
				return nil, err
			}
			bars.XMin = float64(vi)
			bars.Color = variantColor(vi)
			bars.LineStyle.Width = 0
			p.Add(bars)
			if pi == 0 {
				p.Legend.Add(names[vi], bars)
			}
			if w := whisker(cell); w.Low > 0 || w.High > 0 {
				eb, err := plotter.NewYErrorBars(struct {
					plotter.XYs
					plotter.YErrors
				}{plotter.XYs{{X: float64(vi), Y: cell.Center}}, plotter.YErrors{w}})
				if err != nil {
					return nil, err
				}
				eb.CapWidth = vg.Points(8)
				p.Add(eb)
			}
		}
		if top > 0 {
			p.Y.Max = top * 1.3 // the tallest bar clear of the title and legend
		}
		p.Legend.Top = true
		p.Legend.TextStyle.Font.Size = vg.Points(7)
		p.NominalX(names...)
		plots = append(plots, p)
	}
	cols := min(3, len(plots))
	rows := (len(plots) + cols - 1) / cols
	grid := make([][]*plot.Plot, rows)
	for i := range grid {
		grid[i] = make([]*plot.Plot, cols)
	}
	for i, p := range plots {
		grid[i/cols][i%cols] = p
	}
	w, h := panelWidth*vg.Length(cols), panelHeight*vg.Length(rows)
	var notes []string
	if more := drawable - len(picked); more > 0 {
		notes = append(notes, fmt.Sprintf("+%d more rows in the tables", more))
	}
	if zero > 0 {
		notes = append(notes, fmt.Sprintf("%d all-zero rows not drawn", zero))
	}
	return &chart{title: captionTitle(s), note: strings.Join(notes, "; "), w: w, h: h, draw: func(c draw.Canvas) {
		tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Points(6), PadY: vg.Points(6),
			PadTop: vg.Points(4), PadBottom: vg.Points(4), PadLeft: vg.Points(4), PadRight: vg.Points(4)}
		canvases := plot.Align(grid, tiles, c)
		for i := range grid {
			for j, p := range grid[i] {
				if p != nil {
					p.Draw(canvases[i][j])
				}
			}
		}
	}}, nil
}

// captionTitle is a section's title with its group named briefly.
func captionTitle(s *Section) string {
	if s.Group != "" && strings.HasPrefix(s.Title, s.Group) {
		return shortGroup(s.Group) + s.Title[len(s.Group):]
	}
	return s.Title
}

// allZero reports whether every side of a row measured zero.
func allZero(row *compare.Row) bool {
	if row.Base != nil && row.Base.Center != 0 {
		return false
	}
	for i := range row.Candidates {
		c := &row.Candidates[i]
		if c.Presence != compare.Removed && c.Center != 0 {
			return false
		}
	}
	return true
}

// panelVerdict is the first candidate's change and verdict: "-97.47%
// better", "+8 B/op worse", "same".
func panelVerdict(l *Line) string {
	if len(l.Cells) == 0 {
		return ""
	}
	c := l.Cells[0]
	if c.Delta == "" || c.Delta == "~" {
		return c.Verdict
	}
	return c.Delta + " " + c.Verdict
}

// verdictColor colours a changed panel's title: green better, red worse.
func verdictColor(l *Line) color.Color {
	for _, c := range l.Cells {
		if c.Verdict == "worse" {
			return color.RGBA{0xcf, 0x22, 0x2e, 0xff}
		}
	}
	return color.RGBA{0x1a, 0x7f, 0x37, 0xff}
}

// distinctLabels shortens each name to n characters while keeping names
// apart: a prefix they all share is cut first ("pebble-wal-sync",
// "pebble-wal-nosync" -> "…sync", "…nosync").
func distinctLabels(names []string, n int) []string {
	out := make([]string, len(names))
	fits := true
	for i, v := range names {
		out[i] = oneLine(v)
		fits = fits && len([]rune(out[i])) <= n
	}
	if fits || len(names) < 2 {
		for i := range out {
			out[i] = shorten(out[i], n)
		}
		return out
	}
	prefix := []rune(out[0])
	for _, v := range out[1:] {
		r := []rune(v)
		k := 0
		for k < len(prefix) && k < len(r) && prefix[k] == r[k] {
			k++
		}
		prefix = prefix[:k]
	}
	for i, v := range out {
		r := []rune(v)
		if len(prefix) > 2 && len(r) > n {
			r = append([]rune("…"), r[len(prefix):]...)
		}
		if len(r) > n {
			r = append([]rune("…"), r[len(r)-n+1:]...) // keep the end, where names differ
		}
		out[i] = string(r)
	}
	return out
}

// panelTitle names a panel in two short lines: the benchmark (its last
// dotted parts when long), then its parameters or metric.
func panelTitle(l *Line) string {
	name := l.row.Benchmark
	if l.Workload == "" && l.row.Metric != "" && l.Name == l.row.Metric {
		name = l.Name // a counter's derived metric, such as IPC
	}
	for len(name) > 32 {
		i := strings.IndexByte(name, '.')
		if i < 0 {
			break
		}
		name = name[i+1:]
	}
	if l.Workload != "" {
		name = l.Workload + " " + name
	}
	var detail []string
	for _, p := range l.row.Params {
		if p.Name != "workload" {
			detail = append(detail, p.Name+"="+p.Value)
		}
	}
	if l.row.Metric != "" && l.Workload != "" {
		detail = append(detail, l.row.Metric)
	}
	title := shorten(name, 34)
	if len(detail) > 0 {
		title += "\n" + shorten(strings.Join(detail, " "), 34)
	}
	return title
}

// plainTicks are gonum's default ticks labelled as the tables write
// numbers, 2,250 rather than 2250.00, and from a million on with an SI
// suffix, 7.5T rather than 7500000000000.
type plainTicks struct{}

func (plainTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = compactNumber(ts[i].Value)
		}
	}
	return ts
}

// compactNumber writes v with an SI suffix from a million on.
func compactNumber(v float64) string {
	a := math.Abs(v)
	for _, u := range []struct {
		scale  float64
		suffix string
	}{{1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}} {
		if a >= u.scale {
			return strconv.FormatFloat(v/u.scale, 'g', 3, 64) + u.suffix
		}
	}
	return plainNumber(v)
}

// cellOf returns the variant's cell of a row, nil when it lacks one.
func cellOf(row *compare.Row, variant, base string) *compare.Cell {
	if row == nil {
		return nil
	}
	if variant == base {
		return row.Base
	}
	for i := range row.Candidates {
		c := &row.Candidates[i]
		if c.Variant == variant && c.Presence != compare.Removed {
			return &c.Cell
		}
	}
	return nil
}

// whisker is the interval around a cell's centre, zero when unknown or
// unbounded.
func whisker(c *compare.Cell) struct{ Low, High float64 } {
	lo, hi := c.Center-c.Lo, c.Hi-c.Center
	if math.IsInf(lo, 0) || math.IsNaN(lo) || lo < 0 {
		lo = 0
	}
	if math.IsInf(hi, 0) || math.IsNaN(hi) || hi < 0 {
		hi = 0
	}
	return struct{ Low, High float64 }{lo, hi}
}

func hasWhiskers(errs plotter.YErrors) bool {
	for _, e := range errs {
		if e.Low > 0 || e.High > 0 {
			return true
		}
	}
	return false
}

// shorten cuts s to n characters with an ellipsis.
func shorten(s string, n int) string {
	r := []rune(oneLine(s))
	if len(r) <= n {
		return string(r)
	}
	return string(r[:n-1]) + "…"
}

// paren wraps a non-empty note in parentheses.
func paren(s string) string {
	if s == "" {
		return ""
	}
	return "(" + s + ")"
}
