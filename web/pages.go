package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/falsealarm"
	"github.com/perfbot/perfbot/report"
	"github.com/perfbot/perfbot/store"
)

// homeDays is how far back the home page lists changes.
const homeDays = 30

func (s *Server) homeData(r *http.Request) (*Home, error) {
	ctx := r.Context()
	h := &Home{Days: homeDays, Branches: []Branch{}, Runs: []Run{}, Regressions: []Change{}, Improvements: []Change{}}
	bs, err := s.st.Branches(ctx, 50)
	if err != nil {
		return nil, err
	}
	for _, b := range bs {
		h.Branches = append(h.Branches, Branch{Repo: s.scrubText(b.Repo), Ref: b.Ref, Runs: b.Runs, LastRun: runURL(b.LastRun), Last: b.Last})
	}
	rs, err := s.st.RecentRuns(ctx, 30)
	if err != nil {
		return nil, err
	}
	for i := range rs {
		h.Runs = append(h.Runs, s.runOf(&rs[i]))
	}
	since := time.Now().AddDate(0, 0, -homeDays)
	for _, kind := range []struct {
		verdict compare.Verdict
		list    *[]Change
	}{{compare.Worse, &h.Regressions}, {compare.Better, &h.Improvements}} {
		cs, err := s.st.RecentChanges(ctx, string(kind.verdict), since, 50)
		if err != nil {
			return nil, err
		}
		for _, c := range cs {
			ch := Change{Run: c.RunID, RunURL: runURL(c.RunID), Finished: c.Finished, Benchmark: c.Benchmark, Group: c.Group,
				Params: c.Params, Unit: c.Unit, Metric: c.Metric, Variant: c.Variant, BaseRef: c.BaseRef,
				CandidateRef: c.CandidateRef, CandidateCommit: c.CandCommit, Before: finite(c.BaseCentre), After: finite(c.Centre),
				DeltaPct: finite(c.DeltaPct), Verdict: c.Verdict,
				HistoryURL: seriesURL("", c.Benchmark, c.Group, c.Params, c.Unit, c.Metric, c.BaseRef)}
			if c.Target != "" {
				ch.Target = c.Venue + ":" + c.Target
			}
			*kind.list = append(*kind.list, ch)
		}
	}
	return h, nil
}

func (s *Server) home(w http.ResponseWriter, r *http.Request) error {
	h, err := s.homeData(r)
	if err != nil {
		return err
	}
	return s.render(w, "home", map[string]any{"Title": "perfbot", "Home": h})
}

// runPage is what a run's page shows.
type runPage struct {
	Detail  RunDetail
	Cmp     *compare.Comparison
	Doc     *report.Document
	Notes   []string
	Flames  []File
	Summary string
	// Fold says which table rows are shown; MoreNotes counts the notes
	// left out.
	Fold      *Fold
	MoreNotes int
}

func (s *Server) runData(r *http.Request) (*runPage, error) {
	ctx := r.Context()
	id, err := runID(r)
	if err != nil {
		return nil, err
	}
	run, err := s.st.GetRun(ctx, id)
	if err != nil {
		return nil, err
	}
	p := &runPage{Detail: RunDetail{Run: s.runOf(run), Results: []File{}, Charts: []File{}, Files: []File{}, Posts: []Post{}}}
	rc, err := s.comparisonOf(ctx, run)
	switch {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		return nil, err
	default:
		cmp := rc.cmp
		p.Cmp = cmp
		if isAPI(r) {
			// The stored JSON is the contract already: it is sent as
			// it is, not encoded again.
			p.Detail.Comparison = json.RawMessage(rc.json)
		} else {
			// The cached document is shared: fold a copy.
			doc := *rc.document()
			p.Doc = &doc
			if p.Fold, err = foldRows(p.Doc, id, r.URL.Query(), s.pageRows); err != nil {
				return nil, err
			}
		}
		p.Summary = rc.summary
		p.Notes = rc.notes
		if len(p.Notes) > maxNotes && !isAPI(r) {
			p.Notes, p.MoreNotes = p.Notes[:maxNotes], len(p.Notes)-maxNotes
		}
		for _, v := range append([]string{cmp.Base}, cmp.Candidates...) {
			p.Detail.Results = append(p.Detail.Results, File{Name: "results-" + fileName(v) + ".txt",
				ContentType: "text/plain", URL: fmt.Sprintf("/runs/%d/results/%s", id, pathSegment(v))})
		}
		// Charts are drawn when they are asked for, not here.
		names, err := rc.chartNames(id)
		if err != nil {
			return nil, err
		}
		for _, name := range names {
			p.Detail.Charts = append(p.Detail.Charts, File{Name: name, ContentType: "image/png",
				URL: fmt.Sprintf("/runs/%d/charts/%s", id, name)})
		}
	}
	files, err := s.st.Artifacts(ctx, id)
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		file := File{Name: f.Name, ContentType: f.ContentType, Size: f.Size, URL: fmt.Sprintf("/runs/%d/files/%s", id, pathSegment(f.Name))}
		p.Detail.Files = append(p.Detail.Files, file)
		if f.ContentType == "image/svg+xml" && strings.HasPrefix(f.Name, "flame-") {
			p.Flames = append(p.Flames, file)
		}
	}
	marks, err := s.st.FalseAlarmsOfRun(ctx, id)
	if err != nil {
		return nil, err
	}
	for i, m := range marks {
		params := m.Key.Params
		var ps bench.Params
		if err := json.Unmarshal([]byte(params), &ps); err == nil {
			params = ps.String()
		}
		p.Detail.FalseAlarms = append(p.Detail.FalseAlarms, FalseAlarm{Benchmark: m.Key.Benchmark, Group: m.Key.Group,
			Params: params, Unit: m.Key.Unit, Metric: m.Key.Metric, Variant: m.Variant, Verdict: m.Verdict,
			DeltaPct: m.DeltaPct, Host: m.Host, By: m.By, Venue: m.Venue, Reason: m.Reason, At: m.At,
			ThresholdPct: falsealarm.ThresholdPct(marks[i : i+1])})
	}
	if run.JobKey != "" {
		posts, err := s.st.PostsByKey(ctx, run.JobKey)
		if err != nil {
			return nil, err
		}
		for _, po := range posts {
			p.Detail.Posts = append(p.Detail.Posts, Post{Venue: po.Venue, Target: po.Target, Link: po.Link, State: po.State})
		}
	}
	return p, nil
}

// notes gathers what the comparison says beside its tables: each cell's
// note and warnings, the cuts.
func notes(cmp *compare.Comparison) []string {
	var out []string
	for _, row := range cmp.Rows {
		name := row.Benchmark
		if len(row.Params) > 0 {
			name += " " + row.Params.String()
		}
		name += " (" + strings.TrimSpace(row.Metric+" "+row.Unit) + ")"
		if row.Base != nil {
			for _, w := range row.Base.Warnings {
				out = append(out, fmt.Sprintf("%s, %s: %s", name, cmp.Base, w))
			}
		}
		for _, c := range row.Candidates {
			if c.Note != "" {
				out = append(out, fmt.Sprintf("%s, %s: %s", name, c.Variant, c.Note))
			}
			for _, w := range c.Warnings {
				out = append(out, fmt.Sprintf("%s, %s: %s", name, c.Variant, w))
			}
		}
	}
	return out
}

func (s *Server) runPage(w http.ResponseWriter, r *http.Request) error {
	p, err := s.runData(r)
	if err != nil {
		return err
	}
	return s.render(w, "run", map[string]any{"Title": fmt.Sprintf("run %d", p.Detail.Run.ID), "Page": p})
}

func (s *Server) chartFile(w http.ResponseWriter, r *http.Request) error {
	id, err := runID(r)
	if err != nil {
		return err
	}
	run, err := s.st.GetRun(r.Context(), id)
	if err != nil {
		return err
	}
	rc, err := s.comparisonOf(r.Context(), run)
	if err != nil {
		return err
	}
	c, ok, err := rc.chart(id, r.PathValue("name"))
	if err != nil {
		return err
	}
	if !ok {
		return notFound("run %d has no chart %q", id, r.PathValue("name"))
	}
	w.Header().Set("Content-Type", c.ContentType)
	w.Header().Set("Content-Security-Policy", fileCSP)
	_, err = w.Write(c.Data)
	return err
}

func (s *Server) storedFile(w http.ResponseWriter, r *http.Request) error {
	id, err := runID(r)
	if err != nil {
		return err
	}
	f, err := s.st.Artifact(r.Context(), id, r.PathValue("name"))
	if err != nil {
		return err
	}
	ct := f.ContentType
	switch {
	case strings.HasPrefix(ct, "image/svg+xml"), strings.HasPrefix(ct, "image/png"), strings.HasPrefix(ct, "text/plain"):
		// Shown in the browser: images, and text as text.
	default:
		ct = "application/octet-stream"
		w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", fileName(f.Name)))
	}
	data := f.Data
	if strings.HasPrefix(ct, "text/plain") || ct == "application/octet-stream" && strings.HasPrefix(f.ContentType, "application/json") {
		data = s.scrubBytes(data) // a log or the results; images and profiles are left as they are
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Content-Security-Policy", fileCSP)
	_, err = w.Write(data)
	return err
}

// rawResults writes a variant's stored results in Go benchmark format,
// which benchstat reads.
func (s *Server) rawResults(w http.ResponseWriter, r *http.Request) error {
	id, err := runID(r)
	if err != nil {
		return err
	}
	rs, err := s.st.Results(r.Context(), id)
	if err != nil {
		return err
	}
	variant := r.PathValue("variant")
	var b bytes.Buffer
	gw := bench.NewGoWriter(&b)
	n := 0
	for i := range rs {
		if rs[i].Variant == variant {
			if err := gw.Write(&rs[i]); err != nil {
				return err
			}
			n++
		}
	}
	if n == 0 {
		return notFound("run %d has no results of variant %q", id, variant)
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Content-Disposition", fmt.Sprintf("inline; filename=%q", "results-"+fileName(variant)+".txt"))
	_, err = w.Write(s.scrubBytes(b.Bytes()))
	return err
}

func (s *Server) comparisonJSON(w http.ResponseWriter, r *http.Request) error {
	id, err := runID(r)
	if err != nil {
		return err
	}
	data, err := s.st.ComparisonJSON(r.Context(), id)
	if err != nil {
		return err
	}
	data = s.scrubBytes(data)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Disposition", fmt.Sprintf("inline; filename=\"perfbot-run-%d.json\"", id))
	for _, part := range [][]byte{data, []byte("\n")} {
		if _, err := w.Write(part); err != nil {
			return err
		}
	}
	return nil
}

// search answers /benchmarks?q=: the series whose name, group or
// parameters contain every word of q.
func (s *Server) search(r *http.Request) ([]Series, error) {
	q := r.URL.Query().Get("q")
	if len(q) > 200 {
		return nil, badRequest("q is longer than 200 characters")
	}
	list, err := s.st.SearchSeries(r.Context(), q, 500)
	if err != nil {
		return nil, err
	}
	out := []Series{}
	for _, sr := range list {
		out = append(out, Series{Benchmark: sr.Benchmark, Group: sr.Group, Params: sr.Params, Unit: sr.Unit,
			Metric: sr.Metric, Runs: sr.Runs, URL: seriesURL("", sr.Benchmark, sr.Group, sr.Params, sr.Unit, sr.Metric, "")})
	}
	return out, nil
}

func (s *Server) searchPage(w http.ResponseWriter, r *http.Request) error {
	list, err := s.search(r)
	if err != nil {
		return err
	}
	return s.render(w, "search", map[string]any{"Title": "benchmarks", "Query": r.URL.Query().Get("q"), "Series": list})
}

// history reads the series a /benchmarks/NAME request names. When the
// query leaves it ambiguous, it returns nil and the candidates.
func (s *Server) history(r *http.Request) (*History, []Series, error) {
	ctx := r.Context()
	q := r.URL.Query()
	name := r.PathValue("name")
	sr := store.Series{Benchmark: name, Group: q.Get("group"), Unit: q.Get("unit"), Metric: q.Get("metric")}
	if p := q.Get("params"); p != "" {
		if err := json.Unmarshal([]byte(p), &sr.Params); err != nil {
			return nil, nil, badRequest("params=%q: want a JSON object of strings, such as {\"threads\":\"10\"}", p)
		}
	}
	if !q.Has("unit") {
		// Only the name: the series of that name, if just one.
		cands, err := s.seriesNamed(r, name)
		if err != nil {
			return nil, nil, err
		}
		if len(cands) != 1 {
			return nil, cands, nil
		}
		c := cands[0]
		sr = store.Series{Benchmark: c.Benchmark, Group: c.Group, Params: c.Params, Unit: c.Unit, Metric: c.Metric}
	}
	points, err := s.st.SeriesHistory(ctx, sr, "", 2000)
	if err != nil {
		return nil, nil, err
	}
	if len(points) == 0 {
		return nil, nil, notFound("no measurements of %s %s in %s", name, sr.Params, strings.TrimSpace(sr.Metric+" "+sr.Unit))
	}
	h := &History{Series: Series{Benchmark: sr.Benchmark, Group: sr.Group, Params: sr.Params, Unit: sr.Unit, Metric: sr.Metric},
		Refs: []string{}, Points: []Point{}}
	count := map[string]int{}
	for _, p := range points {
		if p.Ref != "" {
			if count[p.Ref] == 0 {
				h.Refs = append(h.Refs, p.Ref)
			}
			if p.Baseline {
				count[p.Ref] += 2
			} else {
				count[p.Ref]++
			}
		}
	}
	sort.SliceStable(h.Refs, func(i, j int) bool { return count[h.Refs[i]] > count[h.Refs[j]] })
	h.Ref = q.Get("ref")
	if h.Ref == "" && len(h.Refs) > 0 {
		h.Ref = h.Refs[0]
	}
	for _, p := range points {
		if h.Ref != "" && p.Ref != h.Ref {
			continue
		}
		h.Points = append(h.Points, pointOf(p))
	}
	h.URL = seriesURL("", sr.Benchmark, sr.Group, sr.Params, sr.Unit, sr.Metric, h.Ref)
	if h.ChangePoints, err = s.seriesChanges(r, sr, h); err != nil {
		return nil, nil, err
	}
	return h, nil, nil
}

// seriesChanges returns the change points of sr found on the tracked
// branch h.Ref whose first commit after the change h shows.
func (s *Server) seriesChanges(r *http.Request, sr store.Series, h *History) ([]HistoryChange, error) {
	out := []HistoryChange{}
	params, err := json.Marshal(sr.Params)
	if err != nil {
		return nil, err
	}
	cps, err := s.st.ChangePoints(r.Context(), store.ChangePointFilter{Limit: 1000, Series: &store.SeriesKey{
		Benchmark: sr.Benchmark, Group: sr.Group, Params: string(params), Unit: sr.Unit, Metric: sr.Metric}})
	if err != nil {
		return nil, err
	}
	shown := map[string]bool{}
	for _, p := range h.Points {
		shown[p.Commit] = true
	}
	for _, cp := range cps {
		// A track is named REPO@BRANCH.
		if i := strings.LastIndexByte(cp.Track, '@'); i < 0 || cp.Track[i+1:] != h.Ref || !shown[cp.Commit] {
			continue
		}
		hc := HistoryChange{Commit: cp.Commit, CommitBefore: cp.CommitBefore, Before: finite(cp.Before),
			After: finite(cp.After), DeltaPct: finite(cp.DeltaPct)}
		if cp.RunID != 0 {
			hc.RunURL = runURL(cp.RunID)
		}
		out = append(out, hc)
	}
	return out, nil
}

// seriesNamed lists the series of one benchmark name.
func (s *Server) seriesNamed(r *http.Request, name string) ([]Series, error) {
	list, err := s.st.SeriesOf(r.Context(), name, 500)
	if err != nil {
		return nil, err
	}
	out := []Series{}
	for _, sr := range list {
		out = append(out, Series{Benchmark: sr.Benchmark, Group: sr.Group, Params: sr.Params, Unit: sr.Unit,
			Metric: sr.Metric, Runs: sr.Runs, URL: seriesURL("", sr.Benchmark, sr.Group, sr.Params, sr.Unit, sr.Metric, "")})
	}
	return out, nil
}

func (s *Server) benchmarkPage(w http.ResponseWriter, r *http.Request) error {
	h, cands, err := s.history(r)
	if err != nil {
		return err
	}
	if h == nil {
		if len(cands) == 0 {
			return notFound("no benchmark named %q", r.PathValue("name"))
		}
		return s.render(w, "search", map[string]any{"Title": r.PathValue("name"), "Query": r.PathValue("name"), "Series": cands})
	}
	type refLink struct {
		Ref, URL string
		Current  bool
	}
	var refs []refLink
	for i, ref := range h.Refs {
		if i == 20 {
			break
		}
		refs = append(refs, refLink{ref, seriesURL("", h.Benchmark, h.Group, h.Params, h.Unit, h.Metric, ref), ref == h.Ref})
	}
	return s.render(w, "benchmark", map[string]any{"Title": h.Benchmark, "History": h, "Chart": historyChart(h.Points, h.ChangePoints),
		"RefLinks": refs, "APIURL": "/api" + h.URL})
}
