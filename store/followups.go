package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Follow-up states.
const (
	// FollowUpOpen is a request whose verdicts wait for its patch to land
	// and for the tracked branch's runs after it.
	FollowUpOpen = "open"
	// FollowUpDecided is a follow-up whose lines are known but not yet
	// put in the answer's outbox.
	FollowUpDecided = "decided"
	// FollowUpPosted is a follow-up whose edit was put in the outbox.
	FollowUpPosted = "posted"
)

// Landing is how a landed commit was linked to a request.
const (
	// LandedMerged: the venue said the request was merged, with its
	// merge commit (GitHub's pull_request "closed" event, merged).
	LandedMerged = "merged"
	// LandedMessage: a tracked commit's message names the request.
	LandedMessage = "message"
	// LandedPatchID: a tracked commit's git patch-id equals the request's.
	LandedPatchID = "patch-id"
)

// FollowUp is the follow-up of one request's verdicts on a tracked branch.
type FollowUp struct {
	// Key is the request's job key; RunID its run, whose better and worse
	// verdicts are followed.
	Key   string
	RunID int64
	// Venue and Target are where the request came from ("github",
	// "acme/store#12").
	Venue, Target string
	// PatchID is git patch-id --stable of the request's patch, if it had
	// one (a mailed patch).
	PatchID string
	// Landed is the commit that landed the request ("" until known), and
	// LandedHow how that was learnt (LandedMerged, ...).
	Landed, LandedHow string
	// Track is the tracked branch the follow-up was decided on.
	Track string
	State string
	// Lines are the follow-up's lines, as put in the answer.
	Lines            []string
	Created, Updated time.Time
}

// OpenFollowUp records that a request's run has verdicts to follow. A
// request run again keeps its row with the newer run, unless its
// follow-up was already decided.
func (s *Store) OpenFollowUp(ctx context.Context, f FollowUp) error {
	now := fmtTimeText(time.Now())
	_, err := s.exec(ctx, `INSERT INTO followups (job_key, run_id, venue, target, patch_id, state, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (job_key) DO UPDATE SET run_id = excluded.run_id, patch_id = excluded.patch_id,
		updated_at = excluded.updated_at WHERE followups.state = ?`,
		f.Key, f.RunID, f.Venue, f.Target, f.PatchID, FollowUpOpen, now, now, FollowUpOpen)
	if err != nil {
		return fmt.Errorf("open follow-up of %s: %w", f.Key, err)
	}
	return nil
}

// LandTarget records that the request at venue and target landed as
// commit; every open follow-up of the target not yet landed takes it. It
// returns how many did.
func (s *Store) LandTarget(ctx context.Context, venue, target, commit, how string) (int64, error) {
	res, err := s.exec(ctx, `UPDATE followups SET landed_commit = ?, landed_how = ?, updated_at = ?
		WHERE venue = ? AND target = ? AND state = ? AND landed_commit = ''`,
		commit, how, fmtTimeText(time.Now()), venue, target, FollowUpOpen)
	if err != nil {
		return 0, fmt.Errorf("landing of %s:%s: %w", venue, target, err)
	}
	return res.RowsAffected()
}

// LandFollowUp records that one request landed as commit, unless its
// landing is known already.
func (s *Store) LandFollowUp(ctx context.Context, key, commit, how string) error {
	_, err := s.exec(ctx, `UPDATE followups SET landed_commit = ?, landed_how = ?, updated_at = ?
		WHERE job_key = ? AND state = ? AND landed_commit = ''`, commit, how, fmtTimeText(time.Now()), key, FollowUpOpen)
	if err != nil {
		return fmt.Errorf("landing of %s: %w", key, err)
	}
	return nil
}

// DecideFollowUp records a follow-up's lines, decided on track; only an
// open follow-up is decided, once. It reports whether this call decided it.
func (s *Store) DecideFollowUp(ctx context.Context, key, track string, lines []string) (bool, error) {
	res, err := s.exec(ctx, `UPDATE followups SET track = ?, lines = ?, state = ?, updated_at = ?
		WHERE job_key = ? AND state = ?`, track, strings.Join(lines, "\n"), FollowUpDecided, fmtTimeText(time.Now()),
		key, FollowUpOpen)
	if err != nil {
		return false, fmt.Errorf("decide follow-up of %s: %w", key, err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// FollowUpPut records that a decided follow-up's edit is in the outbox.
func (s *Store) FollowUpPut(ctx context.Context, key string) error {
	if _, err := s.exec(ctx, `UPDATE followups SET state = ?, updated_at = ? WHERE job_key = ? AND state = ?`,
		FollowUpPosted, fmtTimeText(time.Now()), key, FollowUpDecided); err != nil {
		return fmt.Errorf("follow-up of %s put: %w", key, err)
	}
	return nil
}

// FollowUps returns the follow-ups in state (all when ""), oldest first.
func (s *Store) FollowUps(ctx context.Context, state string) ([]FollowUp, error) {
	if state == "" {
		return s.followUps(ctx, ``)
	}
	return s.followUps(ctx, `WHERE state = ?`, state)
}

func (s *Store) followUps(ctx context.Context, where string, args ...any) ([]FollowUp, error) {
	q := `SELECT job_key, run_id, venue, target, patch_id, landed_commit, landed_how, track, state, lines,
		created_at, updated_at FROM followups `
	rows, err := s.query(ctx, q+where+` ORDER BY created_at, job_key`, args...)
	if err != nil {
		return nil, fmt.Errorf("read follow-ups: %w", err)
	}
	defer rows.Close()
	var out []FollowUp
	for rows.Next() {
		var f FollowUp
		var lines string
		var created, updated sql.NullString
		if err := rows.Scan(&f.Key, &f.RunID, &f.Venue, &f.Target, &f.PatchID, &f.Landed, &f.LandedHow, &f.Track,
			&f.State, &lines, &created, &updated); err != nil {
			return nil, fmt.Errorf("read follow-ups: %w", err)
		}
		if lines != "" {
			f.Lines = strings.Split(lines, "\n")
		}
		if f.Created, err = parseTime(created); err != nil {
			return nil, err
		}
		if f.Updated, err = parseTime(updated); err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

// GetFollowUp returns the follow-up of a request key, or ErrNotFound.
func (s *Store) GetFollowUp(ctx context.Context, key string) (*FollowUp, error) {
	all, err := s.followUps(ctx, `WHERE job_key = ?`, key)
	if err != nil {
		return nil, err
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("follow-up of %s: %w", key, ErrNotFound)
	}
	return &all[0], nil
}

// Verdict is one stored verdict of a run: a benchmark row's candidate
// against the baseline.
type Verdict struct {
	Key      SeriesKey
	Variant  string
	DeltaPct float64
	Verdict  string
}

// RunVerdicts returns a run's verdicts whose verdict is one of want (all
// when none is given).
func (s *Store) RunVerdicts(ctx context.Context, runID int64, want ...string) ([]Verdict, error) {
	rows, err := s.query(ctx, `SELECT benchmark, grp, params_json, unit, metric, variant, COALESCE(delta_pct, 0), verdict
		FROM verdicts WHERE run_id = ? ORDER BY id`, runID)
	if err != nil {
		return nil, fmt.Errorf("verdicts of run %d: %w", runID, err)
	}
	defer rows.Close()
	var out []Verdict
	for rows.Next() {
		var v Verdict
		k := &v.Key
		if err := rows.Scan(&k.Benchmark, &k.Group, &k.Params, &k.Unit, &k.Metric, &v.Variant, &v.DeltaPct, &v.Verdict); err != nil {
			return nil, fmt.Errorf("verdicts of run %d: %w", runID, err)
		}
		if len(want) > 0 && !slices.Contains(want, v.Verdict) {
			continue
		}
		out = append(out, v)
	}
	return out, rows.Err()
}
