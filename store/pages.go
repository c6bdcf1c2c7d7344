package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/perfbot/perfbot/bench"
)

// RecentRuns returns the newest runs, in any state, newest first.
func (s *Store) RecentRuns(ctx context.Context, limit int) ([]Run, error) {
	return s.runs(ctx, `ORDER BY id DESC LIMIT ?`, limit)
}

// RecordRun stores a run that did not come from the queue (perfbot
// compare --save): it is created finished, with its status, refs, host
// and provenance. It returns the run's id.
func (s *Store) RecordRun(ctx context.Context, r *Run) (int64, error) {
	now := time.Now()
	started := r.Started
	if started.IsZero() {
		started = now
	}
	status := r.Status
	if status == "" {
		status = StatusDone
	}
	err := s.queryRow(ctx, `INSERT INTO runs (job_key, venue, target, suites, base_ref, base_commit,
		candidate_ref, candidate_commit, patch, title, status, error, attempt, worker, created_at, started_at,
		finished_at, host_json, provenance_json)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?) RETURNING id`,
		r.JobKey, r.Venue, r.Target, r.Suites, r.BaseRef, r.BaseCommit, r.CandidateRef, r.CandidateCommit,
		r.Patch, r.Title, status, r.Error, r.Worker, fmtTime(started), fmtTime(started), fmtTime(now),
		jsonOr(r.Host), jsonOr(r.Provenance)).Scan(&r.ID)
	if err != nil {
		return 0, fmt.Errorf("record run %s: %w", r.JobKey, err)
	}
	r.Status = status
	return r.ID, nil
}

// Branch is a baseline ref the history holds finished runs of.
type Branch struct {
	// Repo is the repository the newest run measured (its provenance).
	Repo    string
	Ref     string
	Runs    int
	LastRun int64
	Last    time.Time
}

// Branches returns the baseline refs of finished runs, the most recently
// measured first.
func (s *Store) Branches(ctx context.Context, limit int) ([]Branch, error) {
	rows, err := s.query(ctx, `SELECT b.base_ref, b.n, b.last_id, r.finished_at, r.provenance_json
		FROM (SELECT base_ref, COUNT(*) AS n, MAX(id) AS last_id FROM runs WHERE status = ? GROUP BY base_ref) b
		JOIN runs r ON r.id = b.last_id
		ORDER BY b.last_id DESC LIMIT ?`, StatusDone, limit)
	if err != nil {
		return nil, fmt.Errorf("branches: %w", err)
	}
	defer rows.Close()
	var out []Branch
	for rows.Next() {
		var b Branch
		var finished sql.NullString
		var prov string
		if err := rows.Scan(&b.Ref, &b.Runs, &b.LastRun, &finished, &prov); err != nil {
			return nil, fmt.Errorf("branches: %w", err)
		}
		if b.Last, err = parseTime(finished); err != nil {
			return nil, err
		}
		var p struct {
			Repo string `json:"repo"`
		}
		if json.Unmarshal([]byte(prov), &p) == nil {
			b.Repo = p.Repo
		}
		out = append(out, b)
	}
	return out, rows.Err()
}

// Series names one measured quantity: a benchmark under one set of
// parameters, in one unit and metric.
type Series struct {
	Benchmark, Group string
	Params           bench.Params
	Unit, Metric     string
	// Runs counts the runs that measured it (SearchSeries fills it).
	Runs int
}

// SearchSeries returns the series whose benchmark name, group,
// parameters, unit or metric contain every word of query (case-insensitively for ASCII),
// by name; at most limit. A word NAME=VALUE matches a parameter NAME whose
// value starts with VALUE. An empty query matches every series.
func (s *Store) SearchSeries(ctx context.Context, query string, limit int) ([]Series, error) {
	var where []string
	var args []any
	for _, w := range strings.Fields(query) {
		if name, value, ok := strings.Cut(w, "="); ok && name != "" {
			k, _ := json.Marshal(strings.ToLower(name))
			v, _ := json.Marshal(strings.ToLower(value))
			where = append(where, `search LIKE ? ESCAPE '!'`)
			args = append(args, "%"+likeEscape(string(k)+":"+strings.TrimSuffix(string(v), `"`))+"%")
			continue
		}
		pat := "%" + likeEscape(strings.ToLower(w)) + "%"
		where = append(where, `search LIKE ? ESCAPE '!'`)
		args = append(args, pat)
	}
	cond := ""
	if len(where) > 0 {
		cond = "WHERE " + strings.Join(where, " AND ")
	}
	return s.series(ctx, cond, args, limit)
}

// SeriesOf returns the series of the benchmark named exactly name, at
// most limit.
func (s *Store) SeriesOf(ctx context.Context, name string, limit int) ([]Series, error) {
	return s.series(ctx, "WHERE s.benchmark = ?", []any{name}, limit)
}

// seriesSearch is the text a series is searched by: its name, group,
// parameters (as JSON), unit and metric, in lower case.
func seriesSearch(benchmark, group, params, unit, metric string) string {
	return strings.ToLower(benchmark + " " + group + " " + params + " " + unit + " " + metric)
}

func (s *Store) series(ctx context.Context, cond string, args []any, limit int) ([]Series, error) {
	args = append(args, limit)
	// series.runs counts the runs with a result of the series (SaveComparison
	// keeps it), so a search reads one row per series.
	rows, err := s.query(ctx, `SELECT s.benchmark, s.grp, s.params_json, s.unit, s.metric, s.runs
		FROM series s `+cond+` ORDER BY s.benchmark, s.grp, s.params_json, s.unit, s.metric LIMIT ?`, args...)
	if err != nil {
		return nil, fmt.Errorf("find benchmarks: %w", err)
	}
	defer rows.Close()
	var out []Series
	for rows.Next() {
		var sr Series
		var params string
		if err := rows.Scan(&sr.Benchmark, &sr.Group, &params, &sr.Unit, &sr.Metric, &sr.Runs); err != nil {
			return nil, fmt.Errorf("find benchmarks: %w", err)
		}
		if err := json.Unmarshal([]byte(params), &sr.Params); err != nil {
			return nil, fmt.Errorf("find benchmarks: %s params: %w", sr.Benchmark, err)
		}
		out = append(out, sr)
	}
	return out, rows.Err()
}

// likeEscape escapes LIKE's wildcards with "!", the ESCAPE character the
// queries declare.
func likeEscape(s string) string {
	return strings.NewReplacer("!", "!!", "%", "!%", "_", "!_").Replace(s)
}

// SeriesPoint is one run's measurement of a series.
type SeriesPoint struct {
	RunID    int64
	Finished time.Time
	JobKey   string
	// Venue and Target say where the run's answer went.
	Venue, Target string
	// Ref and Commit are what the variant measured; Baseline says
	// whether it was the run's baseline.
	Ref, Commit string
	Variant     string
	Baseline    bool
	Samples     []float64
	Summary     *bench.Summary
	Centre      float64
	// Verdict and DeltaPct compare a candidate with its baseline.
	Verdict  string
	DeltaPct float64
	// Link is the first answer posted for the run's job, if any.
	Link string
}

// SeriesHistory returns the measurements of a series from finished runs
// whose measured ref is ref (any ref when empty), oldest first; at most
// limit, the newest ones. A candidate that applied a patch measured
// "REF + PATCH", not REF.
func (s *Store) SeriesHistory(ctx context.Context, sr Series, ref string, limit int) ([]SeriesPoint, error) {
	params, err := json.Marshal(sr.Params)
	if err != nil {
		return nil, err
	}
	args := []any{sr.Benchmark, sr.Group, string(params), sr.Unit, sr.Metric, StatusDone}
	refCond := ""
	if ref != "" {
		refCond = ` AND ((v.variant IS NULL AND r.base_ref = ?) OR (v.variant IS NOT NULL AND r.candidate_ref = ? AND r.patch = ''))`
		args = append(args, ref, ref)
	}
	args = append(args, limit)
	// The series' results are read first (CROSS JOIN keeps SQLite's join
	// in this order), then their runs: a history costs its own points,
	// not the number of runs in the store.
	rows, err := s.query(ctx, `SELECT r.id, r.finished_at, r.job_key, r.venue, r.target, r.base_ref, r.base_commit,
		r.candidate_ref, r.candidate_commit, r.patch, res.variant, res.samples_json, res.summary_json, COALESCE(res.centre, 0),
		v.verdict, v.delta_pct, v.variant IS NULL,
		(SELECT MIN(p.link) FROM posts p WHERE p.job_key = r.job_key AND r.job_key <> '')
		FROM results res
		CROSS JOIN runs r
		LEFT JOIN verdicts v ON v.run_id = res.run_id AND v.benchmark = res.benchmark AND v.grp = res.grp
			AND v.params_json = res.params_json AND v.unit = res.unit AND v.metric = res.metric
			AND v.variant = res.variant
		WHERE r.id = res.run_id
			AND res.benchmark = ? AND res.grp = ? AND res.params_json = ? AND res.unit = ? AND res.metric = ?
			AND r.status = ?`+refCond+`
		ORDER BY r.finished_at DESC, r.id DESC, res.id DESC LIMIT ?`, args...)
	if err != nil {
		return nil, fmt.Errorf("history of %s: %w", sr.Benchmark, err)
	}
	defer rows.Close()
	var out []SeriesPoint
	for rows.Next() {
		var p SeriesPoint
		var finished, samples, summary, verdict, link sql.NullString
		var baseRef, baseCommit, candRef, candCommit, patch string
		var delta sql.NullFloat64
		if err := rows.Scan(&p.RunID, &finished, &p.JobKey, &p.Venue, &p.Target, &baseRef, &baseCommit, &candRef,
			&candCommit, &patch, &p.Variant, &samples, &summary, &p.Centre, &verdict, &delta, &p.Baseline, &link); err != nil {
			return nil, fmt.Errorf("history of %s: %w", sr.Benchmark, err)
		}
		if p.Finished, err = parseTime(finished); err != nil {
			return nil, err
		}
		if samples.Valid {
			if err := json.Unmarshal([]byte(samples.String), &p.Samples); err != nil {
				return nil, fmt.Errorf("history of %s, run %d: samples: %w", sr.Benchmark, p.RunID, err)
			}
		}
		if summary.Valid {
			p.Summary = new(bench.Summary)
			if err := json.Unmarshal([]byte(summary.String), p.Summary); err != nil {
				return nil, fmt.Errorf("history of %s, run %d: summary: %w", sr.Benchmark, p.RunID, err)
			}
		}
		p.Verdict, p.DeltaPct, p.Link = verdict.String, delta.Float64, link.String
		if p.Baseline {
			p.Ref, p.Commit = baseRef, baseCommit
		} else {
			p.Ref, p.Commit = candRef, candCommit
			if patch != "" {
				// A patch on a ref is not that ref's code.
				p.Ref = strings.TrimSpace(candRef + " + " + patch)
			}
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, nil
}

// RecentChanges returns the verdicts of one kind ("better" or "worse") of
// runs that finished since from, newest first; at most limit.
func (s *Store) RecentChanges(ctx context.Context, verdict string, from time.Time, limit int) ([]Change, error) {
	rows, err := s.query(ctx, `SELECT r.id, r.finished_at, r.job_key, r.venue, r.target, r.base_ref, r.candidate_ref,
		r.base_commit, r.candidate_commit, v.benchmark, v.grp, v.params_json, v.unit, v.metric, v.variant,
		COALESCE(v.base_centre, 0), COALESCE(v.centre, 0), COALESCE(v.delta_pct, 0), v.verdict
		FROM verdicts v JOIN runs r ON r.id = v.run_id
		WHERE v.verdict = ? AND r.status = ? AND r.finished_at >= ?
		ORDER BY r.finished_at DESC, r.id DESC, v.id LIMIT ?`, verdict, StatusDone, fmtTime(from), limit)
	if err != nil {
		return nil, fmt.Errorf("recent changes: %w", err)
	}
	defer rows.Close()
	var out []Change
	for rows.Next() {
		var c Change
		var finished, params string
		if err := rows.Scan(&c.RunID, &finished, &c.JobKey, &c.Venue, &c.Target, &c.BaseRef, &c.CandidateRef,
			&c.BaseCommit, &c.CandCommit, &c.Benchmark, &c.Group, &params, &c.Unit, &c.Metric, &c.Variant,
			&c.BaseCentre, &c.Centre, &c.DeltaPct, &c.Verdict); err != nil {
			return nil, fmt.Errorf("recent changes: %w", err)
		}
		if c.Finished, err = time.Parse(timeFormat, finished); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(params), &c.Params); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}
