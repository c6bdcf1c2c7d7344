package digest

import (
	"context"
	"database/sql"
	"fmt"
	"testing"
	"time"

	"github.com/perfbot/perfbot/internal/storetest"
	"github.com/perfbot/perfbot/store"
)

// fillWeek writes a week of history in bulk: runs requests (each
// measuring three benchmarks, every tenth run moving one of them) and
// cps change points found on a tracked branch during the week, with a
// tracked run for each.
func fillWeek(b *testing.B, st *store.Store, runs, cps int, end time.Time) {
	b.Helper()
	ctx := context.Background()
	tx, err := st.DB().BeginTx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer tx.Rollback()
	stamp := func(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000000Z") }
	insertRun := func(key, venue, target, ref, commit string, at time.Time) int64 {
		var id int64
		err := tx.QueryRowContext(ctx, `INSERT INTO runs (job_key, venue, target, candidate_ref, candidate_commit, status,
			created_at, started_at, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
			key, venue, target, ref, commit, store.StatusDone, stamp(at), stamp(at), stamp(at)).Scan(&id)
		if err != nil {
			b.Fatal(err)
		}
		return id
	}
	verdict := func(tx *sql.Tx, run int64, bench, v string, delta float64) {
		if _, err := tx.ExecContext(ctx, `INSERT INTO verdicts (run_id, variant, benchmark, grp, params_json, unit, metric,
			base_centre, centre, delta_pct, verdict) VALUES (?, 'cand', ?, '', '{}', 'ns/op', '', 100, ?, ?, ?)`,
			run, bench, 100*(1+delta/100), delta, v); err != nil {
			b.Fatal(err)
		}
	}
	week := 7 * 24 * time.Hour
	for i := range runs {
		at := end.Add(-week + time.Duration(i+1)*week/time.Duration(runs+1))
		id := insertRun(fmt.Sprintf("github:acme/store#%d/comment/1", i), "github", fmt.Sprintf("acme/store#%d", i),
			fmt.Sprintf("refs/pull/%d/head", i), fmt.Sprintf("%040x", i), at)
		for j := range 3 {
			v, delta := "same", 0.2
			if i%10 == 0 && j == 0 {
				v, delta = "worse", float64(5+i%40)
				if i%20 == 0 {
					v, delta = "better", -delta
				}
			}
			verdict(tx, id, fmt.Sprintf("BenchmarkOp%d", (i+j)%50), v, delta)
		}
	}
	const track = "acme/store@main"
	for i := range cps {
		at := end.Add(-week + time.Duration(i+1)*week/time.Duration(cps+1))
		commit := fmt.Sprintf("%040x", 1_000_000+i)
		id := insertRun("track:"+commit, store.VenueTrack, track, "main", commit, at)
		bench := fmt.Sprintf("BenchmarkTracked%d", i)
		verdict(tx, id, bench, "worse", 20)
		if _, err := tx.ExecContext(ctx, `INSERT INTO change_points (track, benchmark, grp, params_json, unit, metric,
			commit_before, commit_after, run_id, n_before, n_after, before_centre, before_lo, before_hi, after_centre,
			after_lo, after_hi, delta_pct, p, min_change_pct, found_at, updated_at)
			VALUES (?, ?, '', '{}', 'ns/op', '', ?, ?, ?, 5, 5, 100, 99, 101, 120, 119, 121, 20, 0.001, 2, ?, ?)`,
			track, bench, fmt.Sprintf("%040x", 2_000_000+i), commit, id, stamp(at), stamp(at)); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkBuildWeek builds and renders the digest of a week with 10,000
// runs and 1,000 change points (the scale: under a second).
func BenchmarkBuildWeek(b *testing.B) {
	st := storetest.SQLite(b)
	end := time.Now()
	fillWeek(b, st, 10_000, 1_000, end)
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		d, err := Build(ctx, st, end.Add(-7*24*time.Hour), end.Add(time.Second), Options{Branches: []string{"main"}, Title: "weekly",
			URL: "https://perf.example.org"})
		if err != nil {
			b.Fatal(err)
		}
		if d.Counts.Patches != 10_000 || d.Counts.ChangePoints != 1_000 || len(d.Requests) != 10 || len(d.Shifts) != 10 {
			b.Fatalf("counts %+v, %d requests, %d shifts", d.Counts, len(d.Requests), len(d.Shifts))
		}
		_ = d.Text()
		if _, err := d.HTMLWith(""); err != nil {
			b.Fatal(err)
		}
	}
}
