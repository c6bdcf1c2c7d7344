package web

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/store"
)

// Run is a run as the pages and /api/runs show it.
type Run struct {
	ID              int64     `json:"id"`
	URL             string    `json:"url"`
	Status          string    `json:"status"`
	Error           string    `json:"error,omitempty"`
	JobKey          string    `json:"job_key,omitempty"`
	Venue           string    `json:"venue,omitempty"`
	Target          string    `json:"target,omitempty"`
	Suites          string    `json:"suites,omitempty"`
	BaseRef         string    `json:"base_ref,omitempty"`
	BaseCommit      string    `json:"base_commit,omitempty"`
	CandidateRef    string    `json:"candidate_ref,omitempty"`
	CandidateCommit string    `json:"candidate_commit,omitempty"`
	Patch           string    `json:"patch,omitempty"`
	Title           string    `json:"title,omitempty"`
	Worker          string    `json:"worker,omitempty"`
	Created         time.Time `json:"created,omitzero"`
	Started         time.Time `json:"started,omitzero"`
	Finished        time.Time `json:"finished,omitzero"`
}

// runOf is a run as shown, its texts scrubbed of host paths.
func (s *Server) runOf(r *store.Run) Run {
	x := s.scrubText
	return Run{ID: r.ID, URL: runURL(r.ID), Status: r.Status, Error: x(r.Error), JobKey: x(r.JobKey), Venue: r.Venue,
		Target: x(r.Target), Suites: x(r.Suites), BaseRef: x(r.BaseRef), BaseCommit: r.BaseCommit, CandidateRef: x(r.CandidateRef),
		CandidateCommit: r.CandidateCommit, Patch: x(r.Patch), Title: x(r.Title), Worker: x(r.Worker), Created: r.Created, Started: r.Started,
		Finished: r.Finished}
}

// Branch is a baseline ref with finished runs.
type Branch struct {
	Repo    string    `json:"repo,omitempty"`
	Ref     string    `json:"ref"`
	Runs    int       `json:"runs"`
	LastRun string    `json:"last_run"`
	Last    time.Time `json:"last,omitzero"`
}

// Change is a better or worse verdict of a finished run.
type Change struct {
	Run             int64        `json:"run"`
	RunURL          string       `json:"run_url"`
	HistoryURL      string       `json:"history_url"`
	Finished        time.Time    `json:"finished"`
	Benchmark       string       `json:"benchmark"`
	Group           string       `json:"group,omitempty"`
	Params          bench.Params `json:"params"`
	Unit            string       `json:"unit"`
	Metric          string       `json:"metric,omitempty"`
	Variant         string       `json:"variant"`
	BaseRef         string       `json:"base_ref,omitempty"`
	CandidateRef    string       `json:"candidate_ref,omitempty"`
	CandidateCommit string       `json:"candidate_commit,omitempty"`
	Target          string       `json:"target,omitempty"`
	Before          float64      `json:"before"`
	After           float64      `json:"after"`
	DeltaPct        float64      `json:"delta_pct"`
	Verdict         string       `json:"verdict"`
}

// Home is what the home page shows.
type Home struct {
	Branches     []Branch `json:"branches"`
	Runs         []Run    `json:"runs"`
	Regressions  []Change `json:"regressions"`
	Improvements []Change `json:"improvements"`
	// Days is how far back the changes reach.
	Days int `json:"days"`
}

// File is a download of a run.
type File struct {
	Name        string `json:"name"`
	ContentType string `json:"content_type,omitempty"`
	Size        int    `json:"size,omitempty"`
	URL         string `json:"url"`
}

// Post is an answer posted for a run's job.
type Post struct {
	Venue  string `json:"venue"`
	Target string `json:"target"`
	Link   string `json:"link,omitempty"`
	State  string `json:"state,omitempty"`
}

// RunDetail is /api/runs/ID: the run, its comparison in the JSON
// contract of "perfbot compare --format json", and its downloads.
type RunDetail struct {
	Run        Run             `json:"run"`
	Comparison json.RawMessage `json:"comparison,omitempty"`
	Results    []File          `json:"results"`
	Charts     []File          `json:"charts"`
	Files      []File          `json:"files"`
	Posts      []Post          `json:"posts"`
	// FalseAlarms are the run's verdicts that reviewers marked false
	// alarms, oldest first.
	FalseAlarms []FalseAlarm `json:"false_alarms,omitempty"`
}

// FalseAlarm is one verdict of a run marked a false alarm: which row,
// what it said, on which host, who marked it, when, where and why.
type FalseAlarm struct {
	Benchmark string    `json:"benchmark"`
	Group     string    `json:"group,omitempty"`
	Params    string    `json:"params,omitempty"`
	Unit      string    `json:"unit"`
	Metric    string    `json:"metric,omitempty"`
	Variant   string    `json:"variant,omitempty"`
	Verdict   string    `json:"verdict"`
	DeltaPct  float64   `json:"delta_pct"`
	Host      string    `json:"host"`
	By        string    `json:"by"`
	Venue     string    `json:"venue,omitempty"`
	Reason    string    `json:"reason,omitempty"`
	At        time.Time `json:"at"`
	// ThresholdPct is the threshold this mark alone sets on its host.
	ThresholdPct float64 `json:"threshold_pct"`
}

// Series is one benchmark under one set of parameters, unit and metric.
type Series struct {
	Benchmark string       `json:"benchmark"`
	Group     string       `json:"group,omitempty"`
	Params    bench.Params `json:"params"`
	Unit      string       `json:"unit"`
	Metric    string       `json:"metric,omitempty"`
	Runs      int          `json:"runs,omitempty"`
	URL       string       `json:"url"`
}

// Point is one measurement in a series' history.
type Point struct {
	Run      int64     `json:"run"`
	RunURL   string    `json:"run_url"`
	Finished time.Time `json:"finished"`
	Ref      string    `json:"ref,omitempty"`
	Commit   string    `json:"commit,omitempty"`
	Variant  string    `json:"variant"`
	Baseline bool      `json:"baseline"`
	Centre   float64   `json:"centre"`
	// Lo and Hi bound Centre's 95% interval; null when the samples are
	// too few to give one.
	Lo       *float64 `json:"lo"`
	Hi       *float64 `json:"hi"`
	N        int      `json:"n"`
	Verdict  string   `json:"verdict,omitempty"`
	DeltaPct float64  `json:"delta_pct,omitempty"`
	// Thread is the posted answer's link, when it is a web address.
	Thread string `json:"thread,omitempty"`
	Target string `json:"target,omitempty"`
}

// History is /api/benchmarks/NAME: one series' points on one ref.
type History struct {
	Series
	// Ref is the branch shown; Refs are every ref the series was
	// measured on.
	Ref    string   `json:"ref"`
	Refs   []string `json:"refs"`
	Points []Point  `json:"points"`
	// ChangePoints are the change points found on Ref (a tracked
	// branch) whose first commit after the change is among Points.
	ChangePoints []HistoryChange `json:"change_points"`
}

// HistoryChange is a change point of a series' history: the change came
// in Commit or, when commits between them were not measured, in
// (CommitBefore, Commit].
type HistoryChange struct {
	Commit       string  `json:"commit"`
	CommitBefore string  `json:"commit_before"`
	Before       float64 `json:"before"`
	After        float64 `json:"after"`
	DeltaPct     float64 `json:"delta_pct"`
	// RunURL is the run that measured Commit.
	RunURL string `json:"run_url,omitempty"`
}

func runURL(id int64) string { return "/runs/" + strconv.FormatInt(id, 10) }

// seriesURL is the page of a series' history; ref may be empty.
func seriesURL(prefix, benchmark, group string, params bench.Params, unit, metric, ref string) string {
	u := url.URL{Path: prefix + "/benchmarks/" + benchmark}
	q := url.Values{}
	if group != "" {
		q.Set("group", group)
	}
	if len(params) > 0 {
		p, _ := json.Marshal(params)
		q.Set("params", string(p))
	}
	q.Set("unit", unit)
	if metric != "" {
		q.Set("metric", metric)
	}
	if ref != "" {
		q.Set("ref", ref)
	}
	u.RawQuery = q.Encode()
	return u.String()
}

func writeJSON(w http.ResponseWriter, status int, v any) error {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func (s *Server) apiHome(w http.ResponseWriter, r *http.Request) error {
	h, err := s.homeData(r)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, h)
}

func (s *Server) apiRuns(w http.ResponseWriter, r *http.Request) error {
	limit, err := intParam(r, "limit", 50, 1000)
	if err != nil {
		return err
	}
	rs, err := s.st.RecentRuns(r.Context(), limit)
	if err != nil {
		return err
	}
	out := []Run{}
	for i := range rs {
		out = append(out, s.runOf(&rs[i]))
	}
	return writeJSON(w, http.StatusOK, out)
}

func (s *Server) apiRun(w http.ResponseWriter, r *http.Request) error {
	p, err := s.runData(r)
	if err != nil {
		return err
	}
	d := p.Detail
	raw := d.Comparison
	if raw == nil {
		return writeJSON(w, http.StatusOK, d)
	}
	// The comparison is already JSON (kept encoded for a finished run):
	// re-encoding megabytes of it to indent it again would cost more than
	// the rest of the answer, so it is written as it is, last.
	d.Comparison = nil
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(d); err != nil {
		return err
	}
	// The object without its closing brace.
	head := bytes.TrimRight(bytes.TrimSuffix(bytes.TrimSuffix(b.Bytes(), []byte("\n")), []byte("}")), "\n")
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	for _, part := range [][]byte{head, []byte(",\n  \"comparison\": "), raw, []byte("\n}\n")} {
		if _, err := w.Write(part); err != nil {
			return err
		}
	}
	return nil
}

func (s *Server) apiSearch(w http.ResponseWriter, r *http.Request) error {
	list, err := s.search(r)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, list)
}

func (s *Server) apiBenchmark(w http.ResponseWriter, r *http.Request) error {
	h, _, err := s.history(r)
	if err != nil {
		return err
	}
	if h == nil {
		return notFound("no single series named %q: give unit, params, group and metric (see /api/benchmarks?q=...)", r.PathValue("name"))
	}
	return writeJSON(w, http.StatusOK, h)
}

// intParam reads a positive integer query parameter, def when absent, at
// most max.
func intParam(r *http.Request, name string, def, max int) (int, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, badRequest("%s=%q: want a positive whole number", name, v)
	}
	return min(n, max), nil
}
