package digest

import (
	"bytes"
	"context"
	"fmt"
	"image/color"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/store"
)

// maxTrends bounds the charts attached to one digest.
const maxTrends = 6

// maxTrendPoints bounds the points of one chart: the newest runs, however
// long the history.
const maxTrendPoints = 200

// Trend is a changed benchmark's history on its branch: the centre each
// run measured, oldest first.
type Trend struct {
	// ChangePoint is the id of the change point it shows.
	ChangePoint int64
	Title       string
	Unit        string
	Times       []time.Time
	Values      []float64
}

// trends reads the history of the benchmarks of the change points shown
// (one per series), up to maxTrends.
func trends(ctx context.Context, st *store.Store, shifts, open []Shift, to time.Time) ([]Trend, error) {
	seen := map[int64]bool{}
	runs := map[int64]*store.Run{}
	var out []Trend
	for _, s := range append(slices.Clip(shifts), open...) {
		if seen[s.ID] || len(out) == maxTrends || s.RunID == 0 {
			continue
		}
		seen[s.ID] = true
		run, ok := runs[s.RunID]
		if !ok {
			var err error
			if run, err = st.GetRun(ctx, s.RunID); err != nil {
				return nil, err
			}
			runs[s.RunID] = run
		}
		points, err := st.RecentPoints(ctx, store.RecentQuery{Benchmark: s.Benchmark, Params: s.Params, Unit: s.Unit, Metric: s.Metric,
			Ref: run.CandidateRef, Until: to, Last: maxTrendPoints})
		if err != nil {
			return nil, err
		}
		tr := Trend{ChangePoint: s.ID, Title: s.Label + " on " + trackBranch(s.Track), Unit: s.Unit}
		for _, p := range points {
			if p.Target != pointTarget(run) {
				continue // a patch on the branch, not the branch
			}
			tr.Times = append(tr.Times, p.Finished)
			tr.Values = append(tr.Values, p.Centre)
		}
		if len(tr.Values) > 0 {
			out = append(out, tr)
		}
	}
	return out, nil
}

// trackBranch is the branch of a track's name ("REPO@BRANCH").
func trackBranch(track string) string {
	if i := strings.LastIndex(track, "@"); i >= 0 {
		return track[i+1:]
	}
	return track
}

// Charts draws each trend as a PNG line chart.
func (d *Digest) Charts() ([]answer.Attachment, error) {
	var out []answer.Attachment
	for i, tr := range d.Trends {
		p := plot.New()
		p.Title.Text = tr.Title
		p.Y.Label.Text = tr.Unit
		p.X.Tick.Marker = plot.TimeTicks{Format: "01-02"}
		xys := make(plotter.XYs, len(tr.Values))
		for j := range tr.Values {
			xys[j].X, xys[j].Y = float64(tr.Times[j].Unix()), tr.Values[j]
		}
		line, points, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, fmt.Errorf("chart %q: %w", tr.Title, err)
		}
		line.Color = color.RGBA{0x21, 0x66, 0xac, 0xff}
		points.Shape = draw.CircleGlyph{}
		points.Color = line.Color
		p.Add(line, points, plotter.NewGrid())
		w, err := p.WriterTo(6*vg.Inch, 3*vg.Inch, "png")
		if err != nil {
			return nil, err
		}
		var b bytes.Buffer
		if _, err := w.WriteTo(&b); err != nil {
			return nil, err
		}
		out = append(out, answer.Attachment{Name: fmt.Sprintf("trend-%d.png", i+1), ContentType: "image/png", Data: b.Bytes()})
	}
	return out, nil
}

// pointTarget is a run's target as store.Point gives it.
func pointTarget(r *store.Run) string {
	if r.Target == "" {
		return ""
	}
	return r.Venue + ":" + r.Target
}
