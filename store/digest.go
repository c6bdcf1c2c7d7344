package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// ChangePointsFound returns the change points of every track first found
// in [from, to), newest first.
func (s *Store) ChangePointsFound(ctx context.Context, from, to time.Time) ([]ChangePoint, error) {
	all, err := s.changePointsWhere(ctx, `found_at >= ? AND found_at < ?`, 0, fmtTime(from), fmtTime(to))
	if err != nil {
		return nil, fmt.Errorf("change points found from %s: %w", from.Format(time.RFC3339), err)
	}
	return all, nil
}

// ChangePointsBefore returns the change points of every track found
// before to, newest first: the history a digest reads its open regressions
// from.
func (s *Store) ChangePointsBefore(ctx context.Context, to time.Time) ([]ChangePoint, error) {
	return s.changePointsWhere(ctx, `found_at < ?`, 0, fmtTime(to))
}

// MeasuredSeries is a benchmark (name, group and parameters) a run of a
// ref measured.
type MeasuredSeries struct {
	// Venue and Target are the run's (VenueTrack and the track's name
	// for a tracked branch); CandidateRef is the ref it measured.
	Venue, Target, CandidateRef string
	// Patch names the patch the run applied, if any.
	Patch                    string
	Benchmark, Group, Params string
}

// SeriesMeasuredBetween returns the benchmarks measured by the finished
// runs of a tracked branch in [from, to), each once per venue, target
// and candidate ref: what a digest compares with the period before to
// find the benchmarks that stopped producing results. A tracked branch's
// runs are perfbot track's and the runs without a patch whose candidate
// ref, less any refs/heads/ prefix, is one of branches.
func (s *Store) SeriesMeasuredBetween(ctx context.Context, from, to time.Time, branches []string) ([]MeasuredSeries, error) {
	// The ref test narrows the join to the tracked runs; the exact one,
	// prefix and all, is made on the rows read.
	args := []any{StatusDone, fmtTime(from), fmtTime(to), VenueTrack}
	refs := ""
	for _, b := range branches {
		refs += ", ?, ?"
		args = append(args, b, "refs/heads/"+b)
	}
	tracked := `r.venue = ?`
	if refs != "" {
		tracked = `(r.venue = ? OR r.patch = '' AND r.candidate_ref IN (` + refs[2:] + `))`
	}
	rows, err := s.query(ctx, `SELECT DISTINCT r.venue, r.target, r.candidate_ref, r.patch, v.benchmark, v.grp, v.params_json
		FROM runs r JOIN verdicts v ON v.run_id = r.id
		WHERE r.status = ? AND r.finished_at >= ? AND r.finished_at < ? AND `+tracked, args...)
	if err != nil {
		return nil, fmt.Errorf("benchmarks measured from %s: %w", from.Format(time.RFC3339), err)
	}
	defer rows.Close()
	var out []MeasuredSeries
	for rows.Next() {
		var m MeasuredSeries
		if err := rows.Scan(&m.Venue, &m.Target, &m.CandidateRef, &m.Patch, &m.Benchmark, &m.Group, &m.Params); err != nil {
			return nil, fmt.Errorf("benchmarks measured: %w", err)
		}
		if m.Venue != VenueTrack && !slices.Contains(branches, strings.TrimPrefix(m.CandidateRef, "refs/heads/")) {
			continue
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// RunSummary is what a digest lists of a finished run: no host,
// provenance or other columns it does not show.
type RunSummary struct {
	ID                                 int64
	JobKey, Venue, CandidateRef, Patch string
	Finished                           time.Time
}

// RunSummariesFinishedBetween returns the summaries of the runs that
// finished in [from, to), oldest first: RunsFinishedBetween without the
// columns a digest does not read.
func (s *Store) RunSummariesFinishedBetween(ctx context.Context, from, to time.Time) ([]RunSummary, error) {
	rows, err := s.query(ctx, `SELECT id, job_key, venue, candidate_ref, patch, finished_at FROM runs
		WHERE status = ? AND finished_at >= ? AND finished_at < ? ORDER BY finished_at, id`,
		StatusDone, fmtTime(from), fmtTime(to))
	if err != nil {
		return nil, fmt.Errorf("runs finished from %s: %w", from.Format(time.RFC3339), err)
	}
	defer rows.Close()
	var out []RunSummary
	for rows.Next() {
		var r RunSummary
		var finished sql.NullString
		if err := rows.Scan(&r.ID, &r.JobKey, &r.Venue, &r.CandidateRef, &r.Patch, &finished); err != nil {
			return nil, fmt.Errorf("runs finished: %w", err)
		}
		if r.Finished, err = parseTime(finished); err != nil {
			return nil, fmt.Errorf("run %d: %w", r.ID, err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// AnswerSubject returns the subject of the newest answer put in the
// outbox for a job key (a mail thread's subject), or "" when none was.
func (s *Store) AnswerSubject(ctx context.Context, key string) (string, error) {
	var msg string
	err := s.queryRow(ctx, `SELECT message_json FROM outbox WHERE job_key = ? ORDER BY version DESC LIMIT 1`, key).Scan(&msg)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("answer subject of %s: %w", key, err)
	}
	var a struct{ Subject string }
	if err := json.Unmarshal([]byte(msg), &a); err != nil {
		return "", fmt.Errorf("answer subject of %s: %w", key, err)
	}
	return strings.TrimSpace(a.Subject), nil
}
