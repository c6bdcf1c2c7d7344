package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Artifact is a file kept with a run: a flame graph, a profile, the raw
// results. The run's page offers it for download.
type Artifact struct {
	Name        string
	ContentType string
	// Size is len(Data); Artifacts fills it without reading Data.
	Size int
	Data []byte
}

// SaveArtifacts replaces the files kept with a run, in one transaction.
func (s *Store) SaveArtifacts(ctx context.Context, runID int64, files []Artifact) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM artifacts WHERE run_id = ?`), runID); err != nil {
		return fmt.Errorf("clear files of run %d: %w", runID, err)
	}
	for _, f := range files {
		if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO artifacts (run_id, name, content_type, data) VALUES (?, ?, ?, ?)`),
			runID, f.Name, f.ContentType, f.Data); err != nil {
			return fmt.Errorf("save file %s of run %d: %w", f.Name, runID, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("save files of run %d: %w", runID, err)
	}
	return nil
}

// Artifacts lists the files kept with a run, by name, without their data.
func (s *Store) Artifacts(ctx context.Context, runID int64) ([]Artifact, error) {
	rows, err := s.query(ctx, `SELECT name, content_type, LENGTH(data) FROM artifacts WHERE run_id = ? ORDER BY name`, runID)
	if err != nil {
		return nil, fmt.Errorf("files of run %d: %w", runID, err)
	}
	defer rows.Close()
	var out []Artifact
	for rows.Next() {
		var a Artifact
		if err := rows.Scan(&a.Name, &a.ContentType, &a.Size); err != nil {
			return nil, fmt.Errorf("files of run %d: %w", runID, err)
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// Artifact returns one file kept with a run, or ErrNotFound.
func (s *Store) Artifact(ctx context.Context, runID int64, name string) (*Artifact, error) {
	a := Artifact{Name: name}
	err := s.queryRow(ctx, `SELECT content_type, data FROM artifacts WHERE run_id = ? AND name = ?`, runID, name).
		Scan(&a.ContentType, &a.Data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("file %s of run %d: %w", name, runID, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("file %s of run %d: %w", name, runID, err)
	}
	a.Size = len(a.Data)
	return &a, nil
}
