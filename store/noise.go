package store

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/perfbot/perfbot/compare"
)

// NoiseKey names one benchmark row whose noise is learned: its group, name,
// parameters (as a JSON object), metric and unit.
type NoiseKey struct {
	Group, Benchmark, Params, Metric, Unit string
}

// NoiseKeyOf returns a comparison row's key.
func NoiseKeyOf(row *compare.Row) (NoiseKey, error) {
	params, err := json.Marshal(row.Params)
	if err != nil {
		return NoiseKey{}, fmt.Errorf("noise key of %s: %w", row.Benchmark, err)
	}
	return NoiseKey{Group: row.Group, Benchmark: row.Benchmark, Params: string(params), Metric: row.Metric, Unit: row.Unit}, nil
}

// NoiseDelta is one change observed where nothing changed.
type NoiseDelta struct {
	Key      NoiseKey
	DeltaPct float64
}

// AddNoise records the changes that a comparison of a baseline against
// itself (`perfbot calibrate`) showed on host at time at. Deltas that are
// not finite numbers are skipped.
func (s *Store) AddNoise(ctx context.Context, host string, at time.Time, deltas []NoiseDelta) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("record noise: %w", err)
	}
	defer tx.Rollback()
	for _, d := range deltas {
		if math.IsNaN(d.DeltaPct) || math.IsInf(d.DeltaPct, 0) {
			continue
		}
		k := d.Key
		if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO noise (host, grp, benchmark, params_json, metric, unit, delta_pct, measured_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`), host, k.Group, k.Benchmark, k.Params, k.Metric, k.Unit, d.DeltaPct, fmtTime(at)); err != nil {
			return fmt.Errorf("record noise of %s on %s: %w", k.Benchmark, host, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("record noise: %w", err)
	}
	return nil
}

// Noise returns, per benchmark row, the no-change deltas recorded on host,
// oldest first, at most the latest keep of each (keep <= 0: all).
func (s *Store) Noise(ctx context.Context, host string, keep int) (map[NoiseKey][]float64, error) {
	rows, err := s.query(ctx, `SELECT grp, benchmark, params_json, metric, unit, delta_pct FROM noise
		WHERE host = ? ORDER BY measured_at, id`, host)
	if err != nil {
		return nil, fmt.Errorf("read noise of %s: %w", host, err)
	}
	defer rows.Close()
	out := map[NoiseKey][]float64{}
	for rows.Next() {
		var k NoiseKey
		var d float64
		if err := rows.Scan(&k.Group, &k.Benchmark, &k.Params, &k.Metric, &k.Unit, &d); err != nil {
			return nil, fmt.Errorf("read noise of %s: %w", host, err)
		}
		out[k] = append(out[k], d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read noise of %s: %w", host, err)
	}
	if keep > 0 {
		for k, ds := range out {
			if len(ds) > keep {
				out[k] = ds[len(ds)-keep:]
			}
		}
	}
	return out, nil
}
