package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/internal/texttable"
)

// Point is one measurement of a benchmark in its history.
type Point struct {
	RunID    int64
	Finished time.Time
	// Ref and Commit are what the variant measured.
	Ref, Commit string
	Variant     string
	Params      bench.Params
	Unit        string
	Metric      string
	Centre      float64
	// Verdict is the candidate's verdict against its baseline; empty for
	// the baseline itself.
	Verdict  string
	DeltaPct float64
	Target   string
}

// History returns every stored measurement of the named benchmark from
// finished runs, oldest first.
func (s *Store) History(ctx context.Context, benchmark string) ([]Point, error) {
	rows, err := s.query(ctx, historySelect+`
		WHERE res.benchmark = ? AND r.status = ?
		ORDER BY r.finished_at, r.id, res.id`, benchmark, StatusDone)
	if err != nil {
		return nil, fmt.Errorf("history of %s: %w", benchmark, err)
	}
	return scanPoints(rows, benchmark)
}

// A RecentQuery asks for the recent measurements of one benchmark row on
// one ref: the points of a trend chart.
type RecentQuery struct {
	Benchmark string
	Params    bench.Params
	Unit      string
	Metric    string
	// Ref is the candidate ref whose verdicts make the series.
	Ref string
	// Until is the latest finish time taken (zero: no bound).
	Until time.Time
	// Last is the most points returned, the newest (at least 1).
	Last int
}

// RecentPoints returns the newest q.Last candidate measurements of q's row
// with a verdict, from finished runs of q.Ref, oldest first. Unlike History, what it reads
// and returns is bounded by q.Last, however many runs the store holds.
func (s *Store) RecentPoints(ctx context.Context, q RecentQuery) ([]Point, error) {
	params, err := json.Marshal(q.Params)
	if err != nil {
		return nil, err
	}
	until := q.Until
	if until.IsZero() {
		until = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	// The runs are read newest first (CROSS JOIN keeps SQLite's join
	// in this order), so the query stops after q.Last points.
	rows, err := s.query(ctx, `SELECT r.id, r.finished_at, r.base_ref, r.base_commit, r.candidate_ref,
		r.candidate_commit, r.venue, r.target, res.variant, res.params_json, res.unit, res.metric, res.centre,
		v.verdict, v.delta_pct, 0 = 1
		FROM runs r CROSS JOIN verdicts v CROSS JOIN results res
		WHERE v.run_id = r.id AND res.run_id = r.id AND res.benchmark = v.benchmark AND res.grp = v.grp
			AND res.params_json = v.params_json AND res.unit = v.unit AND res.metric = v.metric
			AND res.variant = v.variant
			AND v.benchmark = ? AND v.params_json = ? AND v.unit = ? AND v.metric = ? AND v.verdict <> ''
			AND r.status = ? AND r.candidate_ref = ? AND r.finished_at <= ?
		ORDER BY r.finished_at DESC, r.id DESC, res.id DESC LIMIT ?`,
		q.Benchmark, string(params), q.Unit, q.Metric, StatusDone, q.Ref, fmtTime(until), max(q.Last, 1))
	if err != nil {
		return nil, fmt.Errorf("series of %s: %w", q.Benchmark, err)
	}
	out, err := scanPoints(rows, q.Benchmark)
	slices.Reverse(out)
	return out, err
}

// historySelect reads points: a result with its run and, for a candidate,
// its verdict.
const historySelect = `SELECT r.id, r.finished_at, r.base_ref, r.base_commit, r.candidate_ref,
		r.candidate_commit, r.venue, r.target, res.variant, res.params_json, res.unit, res.metric, res.centre,
		v.verdict, v.delta_pct, v.variant IS NULL
		FROM results res
		JOIN runs r ON r.id = res.run_id
		LEFT JOIN verdicts v ON v.run_id = res.run_id AND v.benchmark = res.benchmark AND v.grp = res.grp
			AND v.params_json = res.params_json AND v.unit = res.unit AND v.metric = res.metric
			AND v.variant = res.variant`

// scanPoints reads the rows of a historySelect query and closes them.
func scanPoints(rows *sql.Rows, benchmark string) ([]Point, error) {
	defer rows.Close()
	var out []Point
	for rows.Next() {
		var p Point
		var err error
		var finished sql.NullString
		var baseRef, baseCommit, candRef, candCommit, venue, target, params string
		var centre, delta sql.NullFloat64
		var verdict sql.NullString
		var isBase bool
		if err := rows.Scan(&p.RunID, &finished, &baseRef, &baseCommit, &candRef, &candCommit, &venue, &target,
			&p.Variant, &params, &p.Unit, &p.Metric, &centre, &verdict, &delta, &isBase); err != nil {
			return nil, fmt.Errorf("history of %s: %w", benchmark, err)
		}
		if p.Finished, err = parseTime(finished); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(params), &p.Params); err != nil {
			return nil, fmt.Errorf("history of %s, run %d: params: %w", benchmark, p.RunID, err)
		}
		p.Centre, p.Verdict, p.DeltaPct = centre.Float64, verdict.String, delta.Float64
		if isBase {
			p.Ref, p.Commit = baseRef, baseCommit
		} else {
			p.Ref, p.Commit = candRef, candCommit
		}
		if target != "" {
			p.Target = venue + ":" + target
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// WriteHistory prints points as an aligned table: date, commit, variant,
// parameters, centre with its unit, verdict.
func WriteHistory(w io.Writer, points []Point) error {
	t := texttable.New(w, "DATE", "COMMIT", "VARIANT", "PARAMS", "CENTRE", "UNIT", "VERDICT")
	for _, p := range points {
		commit := p.Commit
		if len(commit) > 12 {
			commit = commit[:12]
		}
		if commit == "" {
			commit = p.Ref
		}
		if commit == "" {
			commit = "-"
		}
		verdict := p.Verdict
		if verdict != "" && verdict != "added" && verdict != "removed" {
			verdict += fmt.Sprintf(" (%+.1f%%)", p.DeltaPct)
		}
		if verdict == "" {
			verdict = "-"
		}
		params := p.Params.String()
		if params == "" {
			params = "-"
		}
		unit := p.Unit
		if p.Metric != "" {
			unit = p.Metric + " " + unit
		}
		t.Row(p.Finished.Format("2006-01-02 15:04"), commit, p.Variant, params, strconv.FormatFloat(p.Centre, 'g', 6, 64), unit, verdict)
	}
	return t.Flush()
}

// WriteSeriesHistory prints the history of each series as WriteHistory
// does (up to 1,000 points each, newest first), under its name (its
// group before it), the tables apart by a blank line.
func (s *Store) WriteSeriesHistory(ctx context.Context, w io.Writer, series []Series) error {
	for i, sr := range series {
		sps, err := s.SeriesHistory(ctx, sr, "", 1000)
		if err != nil {
			return err
		}
		var points []Point
		for _, p := range sps {
			points = append(points, Point{RunID: p.RunID, Finished: p.Finished, Ref: p.Ref, Commit: p.Commit,
				Variant: p.Variant, Params: sr.Params, Unit: sr.Unit, Metric: sr.Metric, Centre: p.Centre,
				Verdict: p.Verdict, DeltaPct: p.DeltaPct})
		}
		if i > 0 {
			fmt.Fprintln(w)
		}
		name := sr.Benchmark
		if sr.Group != "" {
			name = sr.Group + " " + name
		}
		fmt.Fprintf(w, "%s\n", name)
		if err := WriteHistory(w, points); err != nil {
			return err
		}
	}
	return nil
}

// ErrNoHistory is WriteHistoryOf's error for words that name no
// benchmark and are in no series' name, group or parameters.
var ErrNoHistory = errors.New("no history")

// WriteHistoryOf prints the history of the benchmark named query as
// WriteHistory does; a query that names no benchmark exactly is searched
// for as words in every series' name, group and parameters (as perfbot
// web's search), and the history of the first max matches is printed.
// more reports that there were more than max.
func (s *Store) WriteHistoryOf(ctx context.Context, w io.Writer, query string, max int) (more bool, err error) {
	points, err := s.History(ctx, query)
	if err != nil {
		return false, err
	}
	if len(points) > 0 {
		return false, WriteHistory(w, points)
	}
	series, err := s.SearchSeries(ctx, query, max+1)
	if err != nil {
		return false, err
	}
	if len(series) == 0 {
		return false, ErrNoHistory
	}
	if len(series) > max {
		more, series = true, series[:max]
	}
	return more, s.WriteSeriesHistory(ctx, w, series)
}
