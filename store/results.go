package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/internal/finite"
)

// SaveComparison stores a run's outcome in one transaction: the comparison
// as JSON, one verdict row per row and candidate, and one result per row
// and variant with its samples or summary. Saving again for the same run
// (a retried job) replaces what was saved before, so nothing is counted
// twice.
func (s *Store) SaveComparison(ctx context.Context, runID int64, c *compare.Comparison) error {
	// NaN and the infinities (a p-value that could not be computed) are
	// stored as null.
	data, err := finite.Marshal(c, true)
	if err != nil {
		return fmt.Errorf("encode comparison of run %d: %w", runID, err)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	ex := func(q string, args ...any) error {
		_, err := tx.ExecContext(ctx, s.q(q), args...)
		return err
	}
	// The series this run measured before count it no more (a retried
	// job saving again); those it measures now count it below.
	if err := ex(`UPDATE series SET runs = runs - 1 WHERE (benchmark, grp, params_json, unit, metric) IN
		(SELECT benchmark, grp, params_json, unit, metric FROM results WHERE run_id = ?)`, runID); err != nil {
		return fmt.Errorf("uncount series of run %d: %w", runID, err)
	}
	for _, table := range []string{"results", "verdicts", "comparisons"} {
		if err := ex(`DELETE FROM `+table+` WHERE run_id = ?`, runID); err != nil {
			return fmt.Errorf("clear %s of run %d: %w", table, runID, err)
		}
	}
	if err := ex(`INSERT INTO comparisons (run_id, comparison_json, created_at) VALUES (?, ?, ?)`,
		runID, string(data), fmtTime(time.Now())); err != nil {
		return fmt.Errorf("save comparison of run %d: %w", runID, err)
	}
	counted := map[[5]string]bool{}
	for _, row := range c.Rows {
		params, err := json.Marshal(row.Params)
		if err != nil {
			return err
		}
		key := [5]string{row.Benchmark, row.Group, string(params), row.Unit, row.Metric}
		if !counted[key] && (row.Base != nil || slices.ContainsFunc(row.Candidates, func(c compare.Candidate) bool {
			return c.Presence != compare.Removed
		})) {
			counted[key] = true
			if err := ex(`INSERT INTO series (benchmark, grp, params_json, unit, metric, search, runs) VALUES (?, ?, ?, ?, ?, ?, 1)
				ON CONFLICT (benchmark, grp, params_json, unit, metric) DO UPDATE SET runs = series.runs + 1`,
				row.Benchmark, row.Group, string(params), row.Unit, row.Metric,
				seriesSearch(row.Benchmark, row.Group, string(params), row.Unit, row.Metric)); err != nil {
				return fmt.Errorf("save series %s of run %d: %w", row.Benchmark, runID, err)
			}
		}
		better := row.Better.String()
		if row.Base != nil {
			if err := insertResult(ex, runID, c.Base, &row, string(params), better, row.Base); err != nil {
				return err
			}
		}
		for i := range row.Candidates {
			cand := &row.Candidates[i]
			if cand.Presence != compare.Removed {
				if err := insertResult(ex, runID, cand.Variant, &row, string(params), better, &cand.Cell); err != nil {
					return err
				}
			}
			var baseCentre any
			if row.Base != nil {
				baseCentre = row.Base.Center
			}
			verdict := string(cand.Verdict)
			if cand.Presence != compare.Both {
				verdict = string(cand.Presence)
			}
			if err := ex(`INSERT INTO verdicts (run_id, benchmark, grp, params_json, unit, metric, variant,
				base_centre, centre, delta_pct, p, verdict) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				runID, row.Benchmark, row.Group, string(params), row.Unit, row.Metric, cand.Variant,
				baseCentre, cand.Center, cand.DeltaPct, cand.P, verdict); err != nil {
				return fmt.Errorf("save verdict of run %d: %w", runID, err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("save comparison of run %d: %w", runID, err)
	}
	return nil
}

func insertResult(ex func(string, ...any) error, runID int64, variant string, row *compare.Row, params, better string, cell *compare.Cell) error {
	var samples, summary any
	if len(cell.Samples) > 0 {
		b, err := json.Marshal(cell.Samples)
		if err != nil {
			return err
		}
		samples = string(b)
	} else if cell.Summary != nil {
		b, err := json.Marshal(cell.Summary)
		if err != nil {
			return err
		}
		summary = string(b)
	}
	if err := ex(`INSERT INTO results (run_id, variant, benchmark, grp, params_json, unit, metric, better,
		samples_json, summary_json, centre) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		runID, variant, row.Benchmark, row.Group, params, row.Unit, row.Metric, better, samples, summary,
		cell.Center); err != nil {
		return fmt.Errorf("save result %s of run %d: %w", row.Benchmark, runID, err)
	}
	return nil
}

// Comparison returns the comparison saved for a run.
func (s *Store) Comparison(ctx context.Context, runID int64) (*compare.Comparison, error) {
	data, err := s.ComparisonJSON(ctx, runID)
	if err != nil {
		return nil, err
	}
	c, err := DecodeComparison(data)
	if err != nil {
		return nil, fmt.Errorf("comparison of run %d: %w", runID, err)
	}
	return c, nil
}

// DecodeComparison reads a comparison as ComparisonJSON returns it.
func DecodeComparison(data []byte) (*compare.Comparison, error) {
	var c compare.Comparison
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, err
	}
	return &c, nil
}

// ComparisonJSON returns a run's comparison as stored: compare.Comparison
// in JSON, compact, each NaN and infinity written as null (the contract
// of perfbot compare --format json, without its indentation). It returns
// ErrNotFound when the run has none.
func (s *Store) ComparisonJSON(ctx context.Context, runID int64) ([]byte, error) {
	var data []byte
	err := s.queryRow(ctx, `SELECT comparison_json FROM comparisons WHERE run_id = ?`, runID).Scan(&data)
	if err == sql.ErrNoRows {
		return nil, fmt.Errorf("comparison of run %d: %w", runID, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("comparison of run %d: %w", runID, err)
	}
	return data, nil
}

// Results returns the results saved for a run, as the common model.
func (s *Store) Results(ctx context.Context, runID int64) ([]bench.Result, error) {
	rows, err := s.query(ctx, `SELECT variant, benchmark, grp, params_json, unit, metric, better, samples_json,
		summary_json FROM results WHERE run_id = ? ORDER BY id`, runID)
	if err != nil {
		return nil, fmt.Errorf("read results of run %d: %w", runID, err)
	}
	defer rows.Close()
	var out []bench.Result
	for rows.Next() {
		var r bench.Result
		var params, better string
		var samples, summary sql.NullString
		if err := rows.Scan(&r.Variant, &r.Benchmark, &r.Group, &params, &r.Unit, &r.Metric, &better, &samples, &summary); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(params), &r.Params); err != nil {
			return nil, fmt.Errorf("result %s of run %d: params: %w", r.Benchmark, runID, err)
		}
		if err := r.Better.UnmarshalText([]byte(better)); err != nil {
			return nil, err
		}
		if samples.Valid {
			if err := json.Unmarshal([]byte(samples.String), &r.Samples); err != nil {
				return nil, fmt.Errorf("result %s of run %d: samples: %w", r.Benchmark, runID, err)
			}
		}
		if summary.Valid {
			r.Summary = new(bench.Summary)
			if err := json.Unmarshal([]byte(summary.String), r.Summary); err != nil {
				return nil, fmt.Errorf("result %s of run %d: summary: %w", r.Benchmark, runID, err)
			}
		}
		out = append(out, r)
	}
	return out, rows.Err()
}
