package store

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"time"
)

// FalseAlarm is a reviewer's mark of one verdict of a run as a false
// alarm: the benchmark row (Key) and candidate (Variant) of the run, the
// verdict and change it had, the host that measured it, who marked it,
// where, when and why.
type FalseAlarm struct {
	ID    int64
	RunID int64
	// Host is the name of the host that ran the run (its provenance's
	// host name, as the noise table names hosts).
	Host    string
	Key     NoiseKey
	Variant string
	// Verdict and DeltaPct are the marked verdict and its change.
	Verdict  string
	DeltaPct float64
	// By names who marked it ("alice", "github:alice"); Venue where the
	// mark came from ("github", "cli").
	By, Venue string
	Reason    string
	At        time.Time
}

// AddFalseAlarms records marks, all or none. A mark whose change is not a
// finite number is refused.
func (s *Store) AddFalseAlarms(ctx context.Context, marks []FalseAlarm) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("record false alarms: %w", err)
	}
	defer tx.Rollback()
	for _, m := range marks {
		if math.IsNaN(m.DeltaPct) || math.IsInf(m.DeltaPct, 0) {
			return fmt.Errorf("false alarm on %s of run %d: change %v is not a number", m.Key.Benchmark, m.RunID, m.DeltaPct)
		}
		at := m.At
		if at.IsZero() {
			at = time.Now()
		}
		k := m.Key
		if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO false_alarms (run_id, host, benchmark, grp, params_json, metric,
			unit, variant, verdict, delta_pct, marked_by, venue, reason, marked_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
			m.RunID, m.Host, k.Benchmark, k.Group, k.Params, k.Metric, k.Unit, m.Variant, m.Verdict, m.DeltaPct,
			m.By, m.Venue, m.Reason, fmtTimeText(at)); err != nil {
			return fmt.Errorf("record false alarm on %s of run %d: %w", k.Benchmark, m.RunID, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("record false alarms: %w", err)
	}
	return nil
}

// FalseAlarmsOfRun returns the marks of a run's verdicts, oldest first.
func (s *Store) FalseAlarmsOfRun(ctx context.Context, runID int64) ([]FalseAlarm, error) {
	return s.falseAlarms(ctx, `WHERE run_id = ? ORDER BY marked_at, id`, runID)
}

// FalseAlarmsOnHost returns the marks of verdicts measured on host, by
// benchmark row, oldest first.
func (s *Store) FalseAlarmsOnHost(ctx context.Context, host string) (map[NoiseKey][]FalseAlarm, error) {
	ms, err := s.falseAlarms(ctx, `WHERE host = ? ORDER BY marked_at, id`, host)
	if err != nil {
		return nil, err
	}
	out := map[NoiseKey][]FalseAlarm{}
	for _, m := range ms {
		out[m.Key] = append(out[m.Key], m)
	}
	return out, nil
}

// FalseAlarms returns the latest limit marks (limit <= 0: all), newest
// first.
func (s *Store) FalseAlarms(ctx context.Context, limit int) ([]FalseAlarm, error) {
	if limit <= 0 {
		return s.falseAlarms(ctx, `ORDER BY marked_at DESC, id DESC`)
	}
	return s.falseAlarms(ctx, `ORDER BY marked_at DESC, id DESC LIMIT ?`, limit)
}

func (s *Store) falseAlarms(ctx context.Context, where string, args ...any) ([]FalseAlarm, error) {
	rows, err := s.query(ctx, `SELECT id, run_id, host, benchmark, grp, params_json, metric, unit, variant, verdict,
		delta_pct, marked_by, venue, reason, marked_at FROM false_alarms `+where, args...)
	if err != nil {
		return nil, fmt.Errorf("read false alarms: %w", err)
	}
	defer rows.Close()
	var out []FalseAlarm
	for rows.Next() {
		var m FalseAlarm
		var at sql.NullString
		if err := rows.Scan(&m.ID, &m.RunID, &m.Host, &m.Key.Benchmark, &m.Key.Group, &m.Key.Params, &m.Key.Metric,
			&m.Key.Unit, &m.Variant, &m.Verdict, &m.DeltaPct, &m.By, &m.Venue, &m.Reason, &at); err != nil {
			return nil, fmt.Errorf("read false alarms: %w", err)
		}
		if m.At, err = parseTime(at); err != nil {
			return nil, fmt.Errorf("false alarm %d: %w", m.ID, err)
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// LatestRunOf returns the last finished run whose answer went to target
// at venue ("github", "acme/store#12"), or ErrNotFound.
func (s *Store) LatestRunOf(ctx context.Context, venue, target string) (*Run, error) {
	rs, err := s.runs(ctx, `WHERE venue = ? AND target = ? AND status = ? ORDER BY finished_at DESC, id DESC LIMIT 1`,
		venue, target, StatusDone)
	if err != nil {
		return nil, err
	}
	if len(rs) == 0 {
		return nil, fmt.Errorf("finished run of %s:%s: %w", venue, target, ErrNotFound)
	}
	return &rs[0], nil
}
