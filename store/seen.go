package store

import (
	"context"
	"fmt"
	"time"
)

// MarkTested records that revision of item at venue (a JIRA issue and its
// attachment id, a review request and its diff revision, a mail thread and
// its series version) was queued for testing. It returns false when the
// pair was already recorded, so each revision is tested once, as Apache
// Yetus remembers issue and attachment.
func (s *Store) MarkTested(ctx context.Context, venue, item, revision, jobKey string) (bool, error) {
	res, err := s.exec(ctx, `INSERT INTO tested (venue, item, revision, job_key, tested_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (venue, item, revision) DO NOTHING`, venue, item, revision, jobKey, fmtTime(time.Now()))
	if err != nil {
		return false, fmt.Errorf("record tested %s %s@%s: %w", venue, item, revision, err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// Tested reports whether revision of item at venue was already recorded.
func (s *Store) Tested(ctx context.Context, venue, item, revision string) (bool, error) {
	var n int
	err := s.queryRow(ctx, `SELECT COUNT(*) FROM tested WHERE venue = ? AND item = ? AND revision = ?`,
		venue, item, revision).Scan(&n)
	return n > 0, err
}

// UnmarkTested forgets a tested pair, when queueing its job failed.
func (s *Store) UnmarkTested(ctx context.Context, venue, item, revision string) error {
	_, err := s.exec(ctx, `DELETE FROM tested WHERE venue = ? AND item = ? AND revision = ?`, venue, item, revision)
	return err
}

// SeeDelivery records a webhook delivery id. It returns false when the id
// was seen before: the delivery is a replay and must be ignored.
func (s *Store) SeeDelivery(ctx context.Context, id string) (bool, error) {
	res, err := s.exec(ctx, `INSERT INTO deliveries (id, received_at) VALUES (?, ?) ON CONFLICT (id) DO NOTHING`,
		id, fmtTime(time.Now()))
	if err != nil {
		return false, fmt.Errorf("record delivery %s: %w", id, err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// ScheduleLast returns when the named schedule last fired (zero if never).
func (s *Store) ScheduleLast(ctx context.Context, name string) (time.Time, error) {
	rows, err := s.query(ctx, `SELECT last_at FROM schedule_runs WHERE name = ?`, name)
	if err != nil {
		return time.Time{}, err
	}
	defer rows.Close()
	if !rows.Next() {
		return time.Time{}, rows.Err()
	}
	var last string
	if err := rows.Scan(&last); err != nil {
		return time.Time{}, err
	}
	return time.Parse(timeFormat, last)
}

// SetScheduleLast records that the named schedule fired at t.
func (s *Store) SetScheduleLast(ctx context.Context, name string, t time.Time) error {
	_, err := s.exec(ctx, `INSERT INTO schedule_runs (name, last_at) VALUES (?, ?)
		ON CONFLICT (name) DO UPDATE SET last_at = excluded.last_at`, name, fmtTime(t))
	return err
}

// PruneDeliveries forgets webhook deliveries received before t. GitHub
// redelivers for a few days at most, so a week's ids are plenty.
func (s *Store) PruneDeliveries(ctx context.Context, before time.Time) (int64, error) {
	res, err := s.exec(ctx, `DELETE FROM deliveries WHERE received_at < ?`, fmtTime(before))
	if err != nil {
		return 0, fmt.Errorf("prune deliveries: %w", err)
	}
	return res.RowsAffected()
}

// DeliveryHandled reports whether a webhook delivery id was recorded by
// SeeDelivery.
func (s *Store) DeliveryHandled(ctx context.Context, id string) (bool, error) {
	var n int
	if err := s.queryRow(ctx, `SELECT COUNT(*) FROM deliveries WHERE id = ?`, id).Scan(&n); err != nil {
		return false, fmt.Errorf("look up delivery %s: %w", id, err)
	}
	return n > 0, nil
}

// ClaimEvery records that the named action happens at now, unless it was
// recorded less than every before now; it reports whether it recorded it.
// Two processes claiming at once cannot both win. The names share the
// schedule_runs table with the schedules.
func (s *Store) ClaimEvery(ctx context.Context, name string, now time.Time, every time.Duration) (bool, error) {
	res, err := s.exec(ctx, `INSERT INTO schedule_runs (name, last_at) VALUES (?, ?)
		ON CONFLICT (name) DO UPDATE SET last_at = excluded.last_at WHERE schedule_runs.last_at <= ?`,
		name, fmtTime(now), fmtTime(now.Add(-every)))
	if err != nil {
		return false, fmt.Errorf("claim %s: %w", name, err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// Unclaim forgets the claim ClaimEvery recorded at at, when the action
// did not happen after all.
func (s *Store) Unclaim(ctx context.Context, name string, at time.Time) error {
	if _, err := s.exec(ctx, `DELETE FROM schedule_runs WHERE name = ? AND last_at = ?`, name, fmtTime(at)); err != nil {
		return fmt.Errorf("forget claim %s: %w", name, err)
	}
	return nil
}

// PruneClaims forgets claims whose name starts with prefix and that were
// made before t.
func (s *Store) PruneClaims(ctx context.Context, prefix string, before time.Time) (int64, error) {
	res, err := s.exec(ctx, `DELETE FROM schedule_runs WHERE name LIKE ? ESCAPE '!' AND last_at < ?`,
		likePrefix(prefix), fmtTime(before))
	if err != nil {
		return 0, fmt.Errorf("prune claims %s: %w", prefix, err)
	}
	return res.RowsAffected()
}
