package report

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/review"
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
func Charts(cmp *compare.Comparison) ([]review.Attachment, error) {
	doc := build(cmp, Options{})
	return charts(cmp, doc, []string{"png", "svg"})
}

// chart is one image to draw.
type chart struct {
	name, title string
	draw        func(c draw.Canvas)
	w, h        vg.Length
}

// charts renders the document's charts in each format; the names of the
// images are recorded in doc.Charts (PNG names when PNG is drawn).
func charts(cmp *compare.Comparison, doc *Document, formats []string) ([]review.Attachment, error) {
	var list []chart
	for _, s := range doc.Sections {
		if len(list) == maxCharts {
			break
		}
		var ch *chart
		var err error
		if s.Shape == ShapeSweep {
			ch, err = sweepChart(cmp, s)
		} else {
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
	var out []review.Attachment
	for _, ch := range list {
		for _, f := range formats {
			data, err := renderChart(ch, f)
			if err != nil {
				return nil, fmt.Errorf("report: chart %s: %w", ch.name, err)
			}
			a := review.Attachment{Name: ch.name + "." + f, Data: data}
			switch f {
			case "png":
				a.ContentType, a.Inline = "image/png", true
			case "svg":
				a.ContentType = "image/svg+xml"
			}
			out = append(out, a)
		}
		if len(formats) > 0 {
			doc.Charts = append(doc.Charts, ChartRef{Name: ch.name + "." + formats[0], Title: ch.title})
		}
	}
	return out, nil
}

func renderChart(ch chart, format string) ([]byte, error) {
	var b bytes.Buffer
	switch format {
	case "png":
		c := vgimg.NewWith(vgimg.UseWH(ch.w, ch.h), vgimg.UseDPI(chartDPI), vgimg.UseBackgroundColor(color.White))
		ch.draw(draw.New(c))
		if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&b); err != nil {
			return nil, err
		}
	case "svg":
		c := vgsvg.New(ch.w, ch.h)
		ch.draw(draw.New(c))
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
	p.Legend.Top = true
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
	return &chart{title: s.Title, w: sweepWidth, h: sweepHeight, draw: p.Draw}, nil
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
	for _, changed := range []bool{true, false} {
		for _, l := range s.Lines {
			if l.Changed == changed && len(picked) < maxPanels && l.row != nil {
				picked = append(picked, l)
			}
		}
	}
	if len(picked) == 0 {
		return nil, nil
	}
	variants := append([]string{cmp.Base}, cmp.Candidates...)
	var plots []*plot.Plot
	for _, l := range picked {
		p := plot.New()
		p.Title.Text = shorten(panelTitle(l), 34)
		p.Title.TextStyle.Font.Size = vg.Points(9)
		p.Y.Label.Text = shorten(metricUnit(l.row.Metric, l.row.Unit), 24)
		p.Y.Label.TextStyle.Font.Size = vg.Points(8)
		p.Y.Tick.Label.Font.Size = vg.Points(7)
		p.X.Tick.Label.Font.Size = vg.Points(8)
		p.Y.Min = 0
		for vi, v := range variants {
			cell := cellOf(l.row, v, cmp.Base)
			if cell == nil {
				continue
			}
			bars, err := plotter.NewBarChart(plotter.Values{cell.Center}, vg.Points(22))
			if err != nil {
				return nil, err
			}
			bars.XMin = float64(vi)
			bars.Color = variantColor(vi)
			bars.LineStyle.Width = 0
			p.Add(bars)
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
		names := make([]string, len(variants))
		for i, v := range variants {
			names[i] = shorten(v, 12)
		}
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
	title := s.Title
	return &chart{title: title, w: w, h: h, draw: func(c draw.Canvas) {
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

func panelTitle(l *Line) string {
	name := l.Name
	if l.Workload != "" {
		name = l.Workload + " " + name
	}
	for _, p := range l.row.Params {
		if p.Name != "workload" {
			name += " " + p.Name + "=" + p.Value
		}
	}
	if l.Metric != "" && l.Workload != "" {
		name += " " + l.Metric
	}
	return name
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
