package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Outbox delivery statuses.
const (
	// OutboxPending is an answer waiting to be delivered (or redelivered
	// after a newer version replaced a delivered one).
	OutboxPending = "pending"
	// OutboxDelivered is an answer whose latest version was delivered.
	OutboxDelivered = "delivered"
	// OutboxFailed is an answer given up: the venue refused it for good,
	// or it could not be delivered for the whole retry period.
	OutboxFailed = "failed"
)

// Answer is one row of the outbox: the latest answer of a request (by its
// key) to one target, and how its delivery stands. Each Put of the same
// key and target replaces the message and raises Version; the newest
// version is the one delivered, so a queued answer not yet delivered is
// superseded by the running one, and that by the result.
type Answer struct {
	Key    string
	Target string
	// Version counts the messages put for this key and target.
	Version int64
	// State is the answer's state ("queued", "running", "success", ...).
	State string
	// Final marks the last answer of a request (a result, a failure, a
	// cancellation): a later non-final answer does not replace it.
	Final bool
	// Message is the answer as JSON (an answer of package answer).
	Message []byte
	Status  string
	// Attempts counts failed deliveries of the pending version.
	Attempts int
	// Since is when the pending version began waiting; retries stop
	// a configured time after it.
	Since time.Time
	// NextAt is when delivery is next tried.
	NextAt time.Time
	// EditAfter is the earliest time a non-final version may be
	// delivered: edits of a live answer are spaced out.
	EditAfter time.Time
	// LastError is why the latest delivery failed.
	LastError string
	// Link is where the answer was delivered.
	Link string
	// DeliveredVersion is the latest version delivered (0: none yet).
	DeliveredVersion int64
	DeliveredAt      time.Time
	Updated          time.Time
}

const answerColumns = `job_key, target, version, state, final, message_json, status, attempts, since, next_at,
	edit_after, last_error, link, delivered_version, delivered_at, updated_at`

func scanAnswer(sc interface{ Scan(...any) error }) (*Answer, error) {
	var a Answer
	var final int
	var msg string
	var since, next, editAfter, delivered, updated sql.NullString
	if err := sc.Scan(&a.Key, &a.Target, &a.Version, &a.State, &final, &msg, &a.Status, &a.Attempts, &since, &next,
		&editAfter, &a.LastError, &a.Link, &a.DeliveredVersion, &delivered, &updated); err != nil {
		return nil, err
	}
	a.Final, a.Message = final == 1, []byte(msg)
	var err error
	for _, f := range []struct {
		dst *time.Time
		src sql.NullString
	}{{&a.Since, since}, {&a.NextAt, next}, {&a.EditAfter, editAfter}, {&a.DeliveredAt, delivered}, {&a.Updated, updated}} {
		if *f.dst, err = parseTime(f.src); err != nil {
			return nil, err
		}
	}
	return &a, nil
}

// fmtTimeText is fmtTime for NOT NULL columns: the zero time is "".
func fmtTimeText(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(timeFormat)
}

// PutAnswer makes msg the answer of key to target, to be delivered from
// now on. A final answer is never replaced by a non-final one: a late
// progress report cannot undo a result. A non-zero newJob is when a new job
// under key was queued: the answer then replaces an older row, final or
// not (an earlier job's), but not one written since newJob (this job's
// worker already moved on). A non-final answer waits for the row's
// EditAfter. The answer the row holds already, delivered or waiting, is
// not stored again, so a retried job's answer is delivered once; a given-up
// one is tried again. It reports whether the answer was stored.
func (s *Store) PutAnswer(ctx context.Context, key, target, state string, final bool, msg []byte, now, newJob time.Time) (bool, error) {
	fin := 0
	if final {
		fin = 1
	}
	for range 20 {
		old, err := s.GetAnswer(ctx, key, target)
		switch {
		case errors.Is(err, ErrNotFound):
			res, err := s.exec(ctx, `INSERT INTO outbox (job_key, target, version, state, final, message_json, status,
				created_at, since, next_at, updated_at) VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (job_key, target) DO NOTHING`,
				key, target, state, fin, string(msg), OutboxPending, fmtTimeText(now), fmtTimeText(now), fmtTimeText(now), fmtTimeText(now))
			if err != nil {
				return false, fmt.Errorf("put answer of %s to %s: %w", key, target, err)
			}
			if n, _ := res.RowsAffected(); n == 1 {
				return true, nil
			}
			continue // another writer inserted first
		case err != nil:
			return false, err
		}
		replace := !newJob.IsZero()
		switch {
		case replace && !old.Updated.Before(newJob):
			return false, nil
		case old.Final && !final && !replace:
			return false, nil
		case !replace && old.Status != OutboxFailed && old.Final == final && old.State == state && string(old.Message) == string(msg):
			// The same answer again (a retried job, a restart): delivered
			// or about to be, it is not delivered twice.
			return false, nil
		}
		since, attempts, next := now, 0, now
		if old.Status == OutboxPending && old.Final == final && !replace {
			// Still undelivered: the retry period and backoff go on.
			since, attempts = old.Since, old.Attempts
			if old.Attempts > 0 && old.NextAt.After(next) {
				next = old.NextAt
			}
		}
		if !final && old.EditAfter.After(next) {
			next = old.EditAfter
		}
		res, err := s.exec(ctx, `UPDATE outbox SET version = version + 1, state = ?, final = ?, message_json = ?, status = ?,
			attempts = ?, since = ?, next_at = ?, last_error = '', updated_at = ?
			WHERE job_key = ? AND target = ? AND version = ?`,
			state, fin, string(msg), OutboxPending, attempts, fmtTimeText(since), fmtTimeText(next), fmtTimeText(now),
			key, target, old.Version)
		if err != nil {
			return false, fmt.Errorf("put answer of %s to %s: %w", key, target, err)
		}
		if n, _ := res.RowsAffected(); n == 1 {
			return true, nil
		}
	}
	return false, fmt.Errorf("put answer of %s to %s: too many concurrent writers", key, target)
}

// GetAnswer returns the outbox row of key and target, or ErrNotFound.
func (s *Store) GetAnswer(ctx context.Context, key, target string) (*Answer, error) {
	a, err := scanAnswer(s.queryRow(ctx, `SELECT `+answerColumns+` FROM outbox WHERE job_key = ? AND target = ?`, key, target))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("answer of %s to %s: %w", key, target, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("answer of %s to %s: %w", key, target, err)
	}
	return a, nil
}

// ClaimAnswers claims up to limit pending answers due at now for owner
// until now+lease, so that no other process delivers them meanwhile, and
// returns them.
func (s *Store) ClaimAnswers(ctx context.Context, owner string, now time.Time, lease time.Duration, limit int) ([]Answer, error) {
	rows, err := s.query(ctx, `SELECT job_key, target FROM outbox WHERE status = ? AND next_at <= ? AND claimed_until <= ?
		ORDER BY next_at LIMIT ?`, OutboxPending, fmtTimeText(now), fmtTimeText(now), limit)
	if err != nil {
		return nil, fmt.Errorf("due answers: %w", err)
	}
	var due [][2]string
	for rows.Next() {
		var k, t string
		if err := rows.Scan(&k, &t); err != nil {
			rows.Close()
			return nil, err
		}
		due = append(due, [2]string{k, t})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var out []Answer
	for _, d := range due {
		res, err := s.exec(ctx, `UPDATE outbox SET claimed_by = ?, claimed_until = ? WHERE job_key = ? AND target = ?
			AND status = ? AND claimed_until <= ?`, owner, fmtTimeText(now.Add(lease)), d[0], d[1], OutboxPending, fmtTimeText(now))
		if err != nil {
			return nil, fmt.Errorf("claim answer of %s to %s: %w", d[0], d[1], err)
		}
		if n, _ := res.RowsAffected(); n != 1 {
			continue
		}
		a, err := s.GetAnswer(ctx, d[0], d[1])
		if err != nil {
			return nil, err
		}
		out = append(out, *a)
	}
	return out, nil
}

// AnswerDelivered records that version of an answer was delivered at
// link. The row stays pending when a newer version came meanwhile; the
// next non-final version waits until editAfter.
func (s *Store) AnswerDelivered(ctx context.Context, key, target string, version int64, link string, now, editAfter time.Time) error {
	_, err := s.exec(ctx, `UPDATE outbox SET delivered_version = ?, delivered_at = ?, link = ?, edit_after = ?,
		claimed_by = '', claimed_until = '', last_error = '',
		status = CASE WHEN version = ? THEN ? ELSE status END,
		attempts = CASE WHEN version = ? THEN 0 ELSE attempts END,
		next_at = CASE WHEN version = ? OR final = 1 OR next_at >= ? THEN next_at ELSE ? END,
		updated_at = ? WHERE job_key = ? AND target = ?`,
		version, fmtTimeText(now), link, fmtTimeText(editAfter), version, OutboxDelivered, version, version,
		fmtTimeText(editAfter), fmtTimeText(editAfter), fmtTimeText(now), key, target)
	if err != nil {
		return fmt.Errorf("record delivery of %s to %s: %w", key, target, err)
	}
	return nil
}

// AnswerRetry records a failed delivery and when to try again.
func (s *Store) AnswerRetry(ctx context.Context, key, target, reason string, now, next time.Time) error {
	_, err := s.exec(ctx, `UPDATE outbox SET attempts = attempts + 1, last_error = ?, next_at = ?,
		claimed_by = '', claimed_until = '', updated_at = ? WHERE job_key = ? AND target = ?`,
		reason, fmtTimeText(next), fmtTimeText(now), key, target)
	if err != nil {
		return fmt.Errorf("record failed delivery of %s to %s: %w", key, target, err)
	}
	return nil
}

// AnswerFailed gives up delivering version of an answer, with the reason.
// A newer version put meanwhile stays pending.
func (s *Store) AnswerFailed(ctx context.Context, key, target string, version int64, reason string, now time.Time) error {
	_, err := s.exec(ctx, `UPDATE outbox SET attempts = attempts + 1, last_error = ?, claimed_by = '', claimed_until = '',
		status = CASE WHEN version = ? THEN ? ELSE status END, updated_at = ? WHERE job_key = ? AND target = ?`,
		reason, version, OutboxFailed, fmtTimeText(now), key, target)
	if err != nil {
		return fmt.Errorf("record given-up delivery of %s to %s: %w", key, target, err)
	}
	return nil
}

// ReleaseAnswer gives up owner's claim on an answer without counting an
// attempt (the process is stopping).
func (s *Store) ReleaseAnswer(ctx context.Context, key, target, owner string) error {
	_, err := s.exec(ctx, `UPDATE outbox SET claimed_by = '', claimed_until = '' WHERE job_key = ? AND target = ? AND claimed_by = ?`,
		key, target, owner)
	return err
}

// RearmAnswers makes failed answers that began waiting after since pending
// again, once: a process starting with a mended configuration tries them
// once more. It returns how many it rearmed.
func (s *Store) RearmAnswers(ctx context.Context, since, now time.Time) (int64, error) {
	res, err := s.exec(ctx, `UPDATE outbox SET status = ?, next_at = ?, updated_at = ? WHERE status = ? AND since >= ?`,
		OutboxPending, fmtTimeText(now), fmtTimeText(now), OutboxFailed, fmtTimeText(since))
	if err != nil {
		return 0, fmt.Errorf("rearm failed answers: %w", err)
	}
	return res.RowsAffected()
}

// Answers returns the outbox rows whose status is one of statuses (all
// rows when none is given), oldest first.
func (s *Store) Answers(ctx context.Context, statuses ...string) ([]Answer, error) {
	query := `SELECT ` + answerColumns + ` FROM outbox`
	var args []any
	for i, st := range statuses {
		if i == 0 {
			query += ` WHERE status IN (?`
		} else {
			query += `, ?`
		}
		args = append(args, st)
	}
	if len(statuses) > 0 {
		query += `)`
	}
	rows, err := s.query(ctx, query+` ORDER BY since, job_key, target`, args...)
	if err != nil {
		return nil, fmt.Errorf("list answers: %w", err)
	}
	defer rows.Close()
	var out []Answer
	for rows.Next() {
		a, err := scanAnswer(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, *a)
	}
	return out, rows.Err()
}

// Answered reports whether every answer of key was delivered in its final
// version: only then is the request answered.
func (s *Store) Answered(ctx context.Context, key string) (bool, error) {
	var open, total int
	err := s.queryRow(ctx, `SELECT COALESCE(SUM(CASE WHEN final = 1 AND status = ? THEN 0 ELSE 1 END), 0), COUNT(*)
		FROM outbox WHERE job_key = ?`, OutboxDelivered, key).Scan(&open, &total)
	if err != nil {
		return false, fmt.Errorf("answered %s: %w", key, err)
	}
	return total > 0 && open == 0, nil
}

// PruneAnswers forgets answers delivered (in their final version) or given
// up before t.
func (s *Store) PruneAnswers(ctx context.Context, before time.Time) (int64, error) {
	res, err := s.exec(ctx, `DELETE FROM outbox WHERE final = 1 AND status IN (?, ?) AND updated_at < ?`,
		OutboxDelivered, OutboxFailed, fmtTimeText(before))
	if err != nil {
		return 0, fmt.Errorf("prune answers: %w", err)
	}
	return res.RowsAffected()
}

// SetRunProgress records a running job's latest progress, as text.
func (s *Store) SetRunProgress(ctx context.Context, runID int64, progress string) error {
	if _, err := s.exec(ctx, `UPDATE runs SET progress = ? WHERE id = ?`, progress, runID); err != nil {
		return fmt.Errorf("record progress of run %d: %w", runID, err)
	}
	return nil
}

// RunProgress returns the latest progress recorded for the run of a queue
// job ("" when none).
func (s *Store) RunProgress(ctx context.Context, jobID int64) (string, error) {
	var p string
	err := s.queryRow(ctx, `SELECT progress FROM runs WHERE job_id = ?`, jobID).Scan(&p)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return p, err
}
