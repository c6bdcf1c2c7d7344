package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/perfbot/perfbot/bench"
)

// Change is a significant verdict (better or worse) of a finished run.
type Change struct {
	RunID                  int64
	Finished               time.Time
	JobKey                 string
	Venue, Target          string
	BaseRef, CandidateRef  string
	BaseCommit, CandCommit string
	Benchmark, Group       string
	Params                 bench.Params
	Unit, Metric, Variant  string
	BaseCentre, Centre     float64
	DeltaPct               float64
	Verdict                string
}

// Changes returns the better and worse verdicts of the runs that finished in
// [from, to), oldest first.
func (s *Store) Changes(ctx context.Context, from, to time.Time) ([]Change, error) {
	rows, err := s.query(ctx, `SELECT r.id, r.finished_at, r.job_key, r.venue, r.target, r.base_ref, r.candidate_ref,
		r.base_commit, r.candidate_commit, v.benchmark, v.grp, v.params_json, v.unit, v.metric, v.variant,
		COALESCE(v.base_centre, 0), COALESCE(v.centre, 0), COALESCE(v.delta_pct, 0), v.verdict
		FROM verdicts v JOIN runs r ON r.id = v.run_id
		WHERE r.status = ? AND r.finished_at >= ? AND r.finished_at < ? AND v.verdict IN ('better', 'worse')
		ORDER BY r.finished_at, r.id, v.id`, StatusDone, fmtTime(from), fmtTime(to))
	if err != nil {
		return nil, fmt.Errorf("changes: %w", err)
	}
	defer rows.Close()
	var out []Change
	for rows.Next() {
		var c Change
		var finished, params string
		if err := rows.Scan(&c.RunID, &finished, &c.JobKey, &c.Venue, &c.Target, &c.BaseRef, &c.CandidateRef,
			&c.BaseCommit, &c.CandCommit, &c.Benchmark, &c.Group, &params, &c.Unit, &c.Metric, &c.Variant,
			&c.BaseCentre, &c.Centre, &c.DeltaPct, &c.Verdict); err != nil {
			return nil, fmt.Errorf("changes: %w", err)
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
