package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/perfbot/perfbot/bench"
)

// VenueTrack is the venue of post-merge runs on a tracked branch; their
// target is the track's name and each run compares a commit (candidate)
// with its first parent (baseline).
const VenueTrack = "track"

// SeriesKey names one benchmark series of a track: a benchmark row as
// results store it (Params is its JSON object).
type SeriesKey struct {
	Benchmark, Group, Params, Unit, Metric string
}

// ChangePoint is a change found in a tracked branch's history of one
// benchmark: the last commit before it, the first after it, and the
// centres of the segments either side with their intervals.
type ChangePoint struct {
	ID int64 `json:"id"`
	// Track names the tracked branch ("REPO@BRANCH").
	Track     string       `json:"track"`
	Benchmark string       `json:"benchmark"`
	Group     string       `json:"group,omitempty"`
	Params    bench.Params `json:"params"`
	Unit      string       `json:"unit"`
	Metric    string       `json:"metric,omitempty"`
	// Commit is the first commit after the change; CommitBefore the last
	// one before it. The change came in Commit or, when commits between
	// them were not measured, somewhere in (CommitBefore, Commit].
	Commit       string `json:"commit"`
	CommitBefore string `json:"commit_before"`
	// RunID is the run that measured Commit.
	RunID int64 `json:"run_id,omitempty"`
	// NBefore and NAfter count the commits in the segments either side.
	NBefore int `json:"n_before"`
	NAfter  int `json:"n_after"`
	// Before and After are the segments' centres (means of the commits'
	// centres), each with its confidence interval.
	Before   float64 `json:"before"`
	BeforeLo float64 `json:"before_lo"`
	BeforeHi float64 `json:"before_hi"`
	After    float64 `json:"after"`
	AfterLo  float64 `json:"after_lo"`
	AfterHi  float64 `json:"after_hi"`
	DeltaPct float64 `json:"delta_pct"`
	P        float64 `json:"p"`
	// MinChangePct is the smallest change the detection reported for this
	// benchmark (raised to its calibrated noise).
	MinChangePct float64 `json:"min_change_pct"`
	// FoundBy says which path found the change: FoundByRun (the commit's
	// own run against its parent was decisive), FoundByHistory (the
	// search of the branch's history) or FoundByBoth.
	FoundBy string    `json:"found_by"`
	Found   time.Time `json:"found_at"`
	Updated time.Time `json:"updated_at"`
	// Posted is when the change was announced; zero until then.
	Posted time.Time `json:"posted_at,omitzero"`
}

// The paths that find change points (ChangePoint.FoundBy).
const (
	// FoundByRun: the commit's own run, which compared it with its parent
	// in alternating rounds, gave a decisive verdict (significant after
	// false-discovery-rate control, beyond the benchmark's noise): the
	// change point is known as soon as the commit is measured. Before and
	// After are then that run's baseline and candidate, one commit each.
	FoundByRun = "run"
	// FoundByHistory: the search of the branch's history (package
	// track/changepoint) found it; Before and After are segments of
	// commits.
	FoundByHistory = "history"
	// FoundByBoth: the run found it and the history search later did too;
	// the figures are the history's.
	FoundByBoth = "run+history"
)

// Key returns the change point's series.
func (c *ChangePoint) Key() (SeriesKey, error) {
	params, err := json.Marshal(c.Params)
	if err != nil {
		return SeriesKey{}, fmt.Errorf("change point of %s: params: %w", c.Benchmark, err)
	}
	return SeriesKey{Benchmark: c.Benchmark, Group: c.Group, Params: string(params), Unit: c.Unit, Metric: c.Metric}, nil
}

// CreateRun records a run that did not come from the queue (a tracked
// commit measured by perfbot track), as running; FinishRun ends it.
func (s *Store) CreateRun(ctx context.Context, r *Run) (int64, error) {
	now := fmtTime(time.Now())
	err := s.queryRow(ctx, `INSERT INTO runs (job_key, venue, target, suites, base_ref, base_commit,
		candidate_ref, candidate_commit, patch, title, status, attempt, worker, created_at, started_at, heartbeat_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?) RETURNING id`,
		r.JobKey, r.Venue, r.Target, r.Suites, r.BaseRef, r.BaseCommit, r.CandidateRef, r.CandidateCommit,
		r.Patch, r.Title, StatusRunning, r.Worker, now, now, now).Scan(&r.ID)
	if err != nil {
		return 0, fmt.Errorf("create run %s: %w", r.JobKey, err)
	}
	return r.ID, nil
}

// TrackedCommits returns the commits of a track measured by a finished run.
func (s *Store) TrackedCommits(ctx context.Context, track string) (map[string]bool, error) {
	rows, err := s.query(ctx, `SELECT candidate_commit FROM runs WHERE venue = ? AND target = ? AND status = ?`,
		VenueTrack, track, StatusDone)
	if err != nil {
		return nil, fmt.Errorf("tracked commits of %s: %w", track, err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return nil, fmt.Errorf("tracked commits of %s: %w", track, err)
		}
		out[c] = true
	}
	return out, rows.Err()
}

// TrackedPoint is one stored result of a track's run.
type TrackedPoint struct {
	RunID    int64
	Finished time.Time
	// Parent and Commit are the run's baseline and candidate commits.
	Parent, Commit string
	// Base says the result is the baseline's (Parent's), not Commit's.
	Base   bool
	Key    SeriesKey
	Centre float64
}

// TrackedPoints returns every result of the finished runs of a track,
// in the order the runs finished.
func (s *Store) TrackedPoints(ctx context.Context, track string) ([]TrackedPoint, error) {
	// A candidate's results are those with a verdict against the baseline.
	rows, err := s.query(ctx, `SELECT r.id, r.finished_at, r.base_commit, r.candidate_commit,
		EXISTS (SELECT 1 FROM verdicts v WHERE v.run_id = res.run_id AND v.variant = res.variant),
		res.benchmark, res.grp, res.params_json, res.unit, res.metric, res.centre
		FROM results res JOIN runs r ON r.id = res.run_id
		WHERE r.venue = ? AND r.target = ? AND r.status = ? AND res.centre IS NOT NULL
		ORDER BY r.finished_at, r.id, res.id`, VenueTrack, track, StatusDone)
	if err != nil {
		return nil, fmt.Errorf("history of track %s: %w", track, err)
	}
	defer rows.Close()
	var out []TrackedPoint
	for rows.Next() {
		var p TrackedPoint
		var finished sql.NullString
		var cand bool
		k := &p.Key
		if err := rows.Scan(&p.RunID, &finished, &p.Parent, &p.Commit, &cand, &k.Benchmark, &k.Group, &k.Params,
			&k.Unit, &k.Metric, &p.Centre); err != nil {
			return nil, fmt.Errorf("history of track %s: %w", track, err)
		}
		if p.Finished, err = parseTime(finished); err != nil {
			return nil, err
		}
		p.Base = !cand
		out = append(out, p)
	}
	return out, rows.Err()
}

// SaveChangePoints records the change points detection found in one series
// of a track, and returns those not stored before. A change point found
// again keeps its id, when it was found and whether it was posted, with
// its figures updated; an unposted one no longer found is removed, while a
// posted one stays, since it was announced.
func (s *Store) SaveChangePoints(ctx context.Context, track string, key SeriesKey, cps []ChangePoint) ([]ChangePoint, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("save change points of %s: %w", key.Benchmark, err)
	}
	defer tx.Rollback()
	now := time.Now().UTC()
	var added []ChangePoint
	keep := map[string]bool{}
	for _, c := range cps {
		c.Track = track
		if c.FoundBy == "" {
			c.FoundBy = FoundByHistory
		}
		keep[c.Commit] = true
		var runID any
		if c.RunID != 0 {
			runID = c.RunID
		}
		var id int64
		err := tx.QueryRowContext(ctx, s.q(`SELECT id FROM change_points WHERE track = ? AND benchmark = ? AND grp = ?
			AND params_json = ? AND unit = ? AND metric = ? AND commit_after = ?`),
			track, key.Benchmark, key.Group, key.Params, key.Unit, key.Metric, c.Commit).Scan(&id)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			err = tx.QueryRowContext(ctx, s.q(`INSERT INTO change_points (track, benchmark, grp, params_json, unit, metric,
				commit_before, commit_after, run_id, n_before, n_after, before_centre, before_lo, before_hi,
				after_centre, after_lo, after_hi, delta_pct, p, min_change_pct, found_by, found_at, updated_at)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`),
				track, key.Benchmark, key.Group, key.Params, key.Unit, key.Metric, c.CommitBefore, c.Commit, runID,
				c.NBefore, c.NAfter, c.Before, c.BeforeLo, c.BeforeHi, c.After, c.AfterLo, c.AfterHi, c.DeltaPct, c.P,
				c.MinChangePct, c.FoundBy, fmtTime(now), fmtTime(now)).Scan(&c.ID)
			if err != nil {
				return nil, fmt.Errorf("save change point of %s at %s: %w", key.Benchmark, c.Commit, err)
			}
			c.Found, c.Updated = now, now
			added = append(added, c)
		case err != nil:
			return nil, fmt.Errorf("save change point of %s at %s: %w", key.Benchmark, c.Commit, err)
		default:
			if _, err := tx.ExecContext(ctx, s.q(`UPDATE change_points SET commit_before = ?, run_id = ?, n_before = ?,
				n_after = ?, before_centre = ?, before_lo = ?, before_hi = ?, after_centre = ?, after_lo = ?, after_hi = ?,
				delta_pct = ?, p = ?, min_change_pct = ?, found_by = ?, updated_at = ? WHERE id = ?`),
				c.CommitBefore, runID, c.NBefore, c.NAfter, c.Before, c.BeforeLo, c.BeforeHi, c.After, c.AfterLo,
				c.AfterHi, c.DeltaPct, c.P, c.MinChangePct, c.FoundBy, fmtTime(now), id); err != nil {
				return nil, fmt.Errorf("update change point %d: %w", id, err)
			}
		}
	}
	rows, err := tx.QueryContext(ctx, s.q(`SELECT id, commit_after FROM change_points WHERE track = ? AND benchmark = ?
		AND grp = ? AND params_json = ? AND unit = ? AND metric = ? AND posted_at IS NULL`),
		track, key.Benchmark, key.Group, key.Params, key.Unit, key.Metric)
	if err != nil {
		return nil, fmt.Errorf("save change points of %s: %w", key.Benchmark, err)
	}
	var gone []int64
	for rows.Next() {
		var id int64
		var commit string
		if err := rows.Scan(&id, &commit); err != nil {
			rows.Close()
			return nil, fmt.Errorf("save change points of %s: %w", key.Benchmark, err)
		}
		if !keep[commit] {
			gone = append(gone, id)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("save change points of %s: %w", key.Benchmark, err)
	}
	for _, id := range gone {
		if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM change_points WHERE id = ?`), id); err != nil {
			return nil, fmt.Errorf("drop change point %d: %w", id, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("save change points of %s: %w", key.Benchmark, err)
	}
	return added, nil
}

// ChangePointFilter selects change points; zero fields select all.
type ChangePointFilter struct {
	Track string
	// Benchmark selects one benchmark's change points.
	Benchmark string
	// Series, when set, selects one series' change points.
	Series *SeriesKey
	// Unposted selects those not yet announced.
	Unposted bool
	// Limit caps the answer (0: no cap).
	Limit int
}

// ChangePoints returns the stored change points, newest first: latest
// found, then latest measured commit.
func (s *Store) ChangePoints(ctx context.Context, f ChangePointFilter) ([]ChangePoint, error) {
	var where []string
	var args []any
	if f.Track != "" {
		where, args = append(where, "track = ?"), append(args, f.Track)
	}
	if f.Benchmark != "" {
		where, args = append(where, "benchmark = ?"), append(args, f.Benchmark)
	}
	if k := f.Series; k != nil {
		where = append(where, "benchmark = ? AND grp = ? AND params_json = ? AND unit = ? AND metric = ?")
		args = append(args, k.Benchmark, k.Group, k.Params, k.Unit, k.Metric)
	}
	if f.Unposted {
		where = append(where, "posted_at IS NULL")
	}
	return s.changePointsWhere(ctx, strings.Join(where, " AND "), f.Limit, args...)
}

// changePointColumns are the columns scanChangePoints reads, in order.
const changePointColumns = `id, track, benchmark, grp, params_json, unit, metric, commit_before, commit_after,
	COALESCE(run_id, 0), n_before, n_after, before_centre, before_lo, before_hi, after_centre, after_lo, after_hi,
	delta_pct, p, min_change_pct, found_by, found_at, updated_at, posted_at`

// changePointsWhere returns the change points that match where (all when
// it is empty), newest first: latest found, then latest measured commit;
// at most limit of them when limit is positive.
func (s *Store) changePointsWhere(ctx context.Context, where string, limit int, args ...any) ([]ChangePoint, error) {
	q := `SELECT ` + changePointColumns + ` FROM change_points`
	if where != "" {
		q += " WHERE " + where
	}
	q += " ORDER BY found_at DESC, COALESCE(run_id, 0) DESC, id DESC"
	if limit > 0 {
		q += fmt.Sprintf(" LIMIT %d", limit)
	}
	rows, err := s.query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("read change points: %w", err)
	}
	defer rows.Close()
	return scanChangePoints(rows)
}

// scanChangePoints reads rows of changePointColumns.
func scanChangePoints(rows *sql.Rows) ([]ChangePoint, error) {
	var out []ChangePoint
	for rows.Next() {
		var c ChangePoint
		var params string
		var found, updated, posted sql.NullString
		if err := rows.Scan(&c.ID, &c.Track, &c.Benchmark, &c.Group, &params, &c.Unit, &c.Metric, &c.CommitBefore,
			&c.Commit, &c.RunID, &c.NBefore, &c.NAfter, &c.Before, &c.BeforeLo, &c.BeforeHi, &c.After, &c.AfterLo,
			&c.AfterHi, &c.DeltaPct, &c.P, &c.MinChangePct, &c.FoundBy, &found, &updated, &posted); err != nil {
			return nil, fmt.Errorf("read change points: %w", err)
		}
		if err := json.Unmarshal([]byte(params), &c.Params); err != nil {
			return nil, fmt.Errorf("change point %d: params: %w", c.ID, err)
		}
		for _, t := range []struct {
			dst *time.Time
			src sql.NullString
		}{{&c.Found, found}, {&c.Updated, updated}, {&c.Posted, posted}} {
			v, err := parseTime(t.src)
			if err != nil {
				return nil, fmt.Errorf("change point %d: %w", c.ID, err)
			}
			*t.dst = v
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read change points: %w", err)
	}
	return out, nil
}

// MarkChangePointPosted records that a change point was announced.
func (s *Store) MarkChangePointPosted(ctx context.Context, id int64, at time.Time) error {
	if _, err := s.exec(ctx, `UPDATE change_points SET posted_at = ? WHERE id = ?`, fmtTime(at), id); err != nil {
		return fmt.Errorf("mark change point %d posted: %w", id, err)
	}
	return nil
}

// TrackRuns returns the finished runs of a track, in the order they
// finished.
func (s *Store) TrackRuns(ctx context.Context, track string) ([]Run, error) {
	return s.runs(ctx, `WHERE venue = ? AND target = ? AND status = ? ORDER BY finished_at, id`, VenueTrack, track, StatusDone)
}
