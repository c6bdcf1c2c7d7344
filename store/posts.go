package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Post is the record of an answer posted for a job: where, the link the
// venue returned, and the last state posted.
type Post struct {
	Venue, Target, JobKey string
	Link                  string
	State                 string
	// Count is how many times the answer was posted or edited.
	Count   int
	Updated time.Time
}

// RecordPost records that the answer for a job key was posted (or edited)
// at venue and target.
func (s *Store) RecordPost(ctx context.Context, p Post) error {
	now := fmtTime(time.Now())
	_, err := s.exec(ctx, `INSERT INTO posts (venue, target, job_key, link, state, posts, updated_at)
		VALUES (?, ?, ?, ?, ?, 1, ?)
		ON CONFLICT (venue, target, job_key) DO UPDATE SET link = excluded.link, state = excluded.state,
		posts = posts.posts + 1, updated_at = excluded.updated_at`,
		p.Venue, p.Target, p.JobKey, p.Link, p.State, now)
	if err != nil {
		return fmt.Errorf("record post of %s to %s:%s: %w", p.JobKey, p.Venue, p.Target, err)
	}
	return nil
}

// GetPost returns the post record of a job key at a venue and target, or
// ErrNotFound.
func (s *Store) GetPost(ctx context.Context, venue, target, key string) (*Post, error) {
	p := Post{Venue: venue, Target: target, JobKey: key}
	var updated sql.NullString
	err := s.queryRow(ctx, `SELECT link, state, posts, updated_at FROM posts WHERE venue = ? AND target = ? AND job_key = ?`,
		venue, target, key).Scan(&p.Link, &p.State, &p.Count, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("post of %s to %s:%s: %w", key, venue, target, ErrNotFound)
	}
	if err != nil {
		return nil, err
	}
	p.Updated, err = parseTime(updated)
	return &p, err
}

// PostsByKey returns every post of a job key.
func (s *Store) PostsByKey(ctx context.Context, key string) ([]Post, error) {
	rows, err := s.query(ctx, `SELECT venue, target, link, state, posts, updated_at FROM posts WHERE job_key = ? ORDER BY venue, target`, key)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Post
	for rows.Next() {
		p := Post{JobKey: key}
		var updated sql.NullString
		if err := rows.Scan(&p.Venue, &p.Target, &p.Link, &p.State, &p.Count, &updated); err != nil {
			return nil, err
		}
		if p.Updated, err = parseTime(updated); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}
