package storetest

import (
	"context"
	"crypto/sha1"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/store"
)

// Shape is the history Fill writes: Benchmarks series measured at each of
// Commits commits of one tracked branch. Each run compares two
// consecutive commits (2k as the baseline, 2k+1 as the candidate), so
// there are Commits/2 runs and Benchmarks*Commits results.
type Shape struct {
	Benchmarks, Commits int
	// Repo and Ref name the tracked branch (defaults "acme/store", "main").
	Repo, Ref string
	// StepEvery makes every StepEvery-th series step up by 20% at commit
	// StepAt, with a stored change point there (0: none).
	StepEvery, StepAt int
}

// BulkSeries describes series i of a Fill: benchmark Bench<i/10> in
// package pkg<i%7>, parameter size=<i%10>, ns/op.
func BulkSeries(i int) (name, group string, params bench.Params) {
	return "Bench" + strconv.Itoa(i/10), "pkg" + strconv.Itoa(i%7), bench.Params{{Name: "size", Value: strconv.Itoa(i % 10)}}
}

// BulkCommit is the hash Fill gives commit c.
func BulkCommit(c int) string { return fmt.Sprintf("%x", sha1.Sum([]byte("commit "+strconv.Itoa(c)))) }

// Fill writes the history sh describes into st in bulk: the runs through
// the store, then every result, verdict, series, comparison and change
// point in one transaction (SQLite) or by COPY (PostgreSQL), as
// SaveComparison and SaveChangePoints would have written them (a series
// counts its runs as SaveComparison counts them). It returns
// the ids of the runs, oldest first.
func Fill(ctx context.Context, st *store.Store, sh Shape) ([]int64, error) {
	if sh.Repo == "" {
		sh.Repo = "acme/store"
	}
	if sh.Ref == "" {
		sh.Ref = "main"
	}
	track := sh.Repo + "@" + sh.Ref
	now := time.Now().UTC()
	var ids []int64
	runs := sh.Commits / 2
	for k := range runs {
		finished := now.Add(time.Duration(k-runs) * time.Minute)
		id, err := st.RecordRun(ctx, &store.Run{JobKey: "track-" + BulkCommit(2*k+1), Venue: store.VenueTrack,
			Target: track, Suites: "go", BaseRef: sh.Ref, BaseCommit: BulkCommit(2 * k), CandidateRef: sh.Ref,
			CandidateCommit: BulkCommit(2*k + 1), Status: store.StatusDone, Worker: "bench-1",
			Started: finished.Add(-time.Minute)})
		if err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	w, err := newBulkWriter(ctx, st)
	if err != nil {
		return nil, err
	}
	defer w.close()
	rng := rand.New(rand.NewPCG(1, 2))
	stepped := func(i int) bool {
		return sh.StepEvery > 0 && i%sh.StepEvery == 0 && sh.StepAt > 0 && sh.StepAt < sh.Commits
	}
	centre := func(i, c int) float64 {
		v := 1000 + float64(i)
		if stepped(i) && c >= sh.StepAt {
			v *= 1.2
		}
		return v
	}
	for k, id := range ids {
		var b bulk
		base, cand := 2*k, 2*k+1
		cmp := &compare.Comparison{Base: "base", Candidates: []string{"patch"}, Method: "perfbot"}
		for i := range sh.Benchmarks {
			name, group, params := BulkSeries(i)
			pj, _ := json.Marshal(params)
			samples := func(c int) []float64 {
				s := make([]float64, 6)
				for j := range s {
					s[j] = centre(i, c) * (1 + 0.01*rng.NormFloat64())
				}
				slices.Sort(s)
				return s
			}
			bs, cs := samples(base), samples(cand)
			bc, cc := (bs[2]+bs[3])/2, (cs[2]+cs[3])/2
			verdict, p := compare.Same, 0.3
			if centre(i, cand) != centre(i, base) {
				verdict, p = compare.Worse, 0.002
			}
			delta := (cc/bc - 1) * 100
			cmp.Rows = append(cmp.Rows, compare.Row{Benchmark: name, Group: group, Params: params, Unit: "ns/op",
				Better: bench.LowerIsBetter, Base: &compare.Cell{Center: bc, Lo: bs[0], Hi: bs[5], N: 6},
				Candidates: []compare.Candidate{{Variant: "patch", Cell: compare.Cell{Center: cc, Lo: cs[0], Hi: cs[5], N: 6},
					DeltaPct: delta, Ratio: cc / bc, P: p, Alpha: 0.05, Verdict: verdict, Test: "mann-whitney-u", MDEPct: 2}}})
			better := bench.LowerIsBetter.String()
			for _, side := range []struct {
				variant string
				s       []float64
				c       float64
			}{{"base", bs, bc}, {"patch", cs, cc}} {
				sj, _ := json.Marshal(side.s)
				b.add("results", id, side.variant, name, group, string(pj), "ns/op", "", better, string(sj), nil, side.c)
			}
			b.add("verdicts", id, name, group, string(pj), "ns/op", "", "patch", bc, cc, delta, p, string(verdict))
			if k == 0 {
				b.add("series", name, group, string(pj), "ns/op", "", strings.ToLower(name+" "+group+" "+string(pj)+" ns/op "),
					len(ids))
			}
			if k == 0 && stepped(i) {
				before, after := centre(i, sh.StepAt-1), centre(i, sh.StepAt)
				at := now.Format(timeFormat)
				// The run that measured StepAt.
				b.add("change_points", track, name, group, string(pj), "ns/op", "", BulkCommit(sh.StepAt-1),
					BulkCommit(sh.StepAt), ids[sh.StepAt/2], sh.StepAt, sh.Commits-sh.StepAt, before, before*0.99,
					before*1.01, after, after*0.99, after*1.01, (after/before-1)*100, 0.001, 2.0, at, at)
			}
		}
		data, err := json.Marshal(cmp)
		if err != nil {
			return nil, err
		}
		b.add("comparisons", id, string(data), now.Format(timeFormat))
		if err := w.write(ctx, &b); err != nil {
			return nil, fmt.Errorf("bulk fill, run %d: %w", id, err)
		}
	}
	if err := w.commit(ctx); err != nil {
		return nil, fmt.Errorf("bulk fill: %w", err)
	}
	return ids, nil
}

// timeFormat is the store's.
const timeFormat = "2006-01-02T15:04:05.000000Z"

// bulk holds rows to write, by table.
type bulk struct{ rows map[string][][]any }

func (b *bulk) add(table string, row ...any) {
	if b.rows == nil {
		b.rows = map[string][][]any{}
	}
	b.rows[table] = append(b.rows[table], row)
}

// bulkTables are the tables Fill writes, in order, with their columns.
var bulkTables = []struct {
	name    string
	columns []string
}{
	{"series", []string{"benchmark", "grp", "params_json", "unit", "metric", "search", "runs"}},
	{"comparisons", []string{"run_id", "comparison_json", "created_at"}},
	{"results", []string{"run_id", "variant", "benchmark", "grp", "params_json", "unit", "metric", "better",
		"samples_json", "summary_json", "centre"}},
	{"verdicts", []string{"run_id", "benchmark", "grp", "params_json", "unit", "metric", "variant", "base_centre",
		"centre", "delta_pct", "p", "verdict"}},
	{"change_points", []string{"track", "benchmark", "grp", "params_json", "unit", "metric", "commit_before",
		"commit_after", "run_id", "n_before", "n_after", "before_centre", "before_lo", "before_hi", "after_centre",
		"after_lo", "after_hi", "delta_pct", "p", "min_change_pct", "found_at", "updated_at"}},
}

// bulkWriter writes rows by COPY on PostgreSQL, or by prepared INSERTs in
// one transaction on SQLite.
type bulkWriter struct {
	st    *store.Store
	conn  *sql.Conn
	tx    *sql.Tx
	stmts map[string]*sql.Stmt
}

func newBulkWriter(ctx context.Context, st *store.Store) (*bulkWriter, error) {
	w := &bulkWriter{st: st, stmts: map[string]*sql.Stmt{}}
	if st.Driver() == store.Postgres {
		conn, err := st.DB().Conn(ctx)
		if err != nil {
			return nil, err
		}
		w.conn = conn
		return w, nil
	}
	tx, err := st.DB().BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	w.tx = tx
	for _, t := range bulkTables {
		stmt, err := tx.PrepareContext(ctx, "INSERT INTO "+t.name+" ("+strings.Join(t.columns, ", ")+") VALUES (?"+
			strings.Repeat(", ?", len(t.columns)-1)+")")
		if err != nil {
			tx.Rollback()
			return nil, fmt.Errorf("insert into %s: %w", t.name, err)
		}
		w.stmts[t.name] = stmt
	}
	return w, nil
}

func (w *bulkWriter) write(ctx context.Context, b *bulk) error {
	if w.conn != nil {
		return w.conn.Raw(func(dc any) error {
			pc := dc.(*stdlib.Conn).Conn()
			for _, t := range bulkTables {
				if len(b.rows[t.name]) == 0 {
					continue
				}
				if _, err := pc.CopyFrom(ctx, pgx.Identifier{t.name}, t.columns, pgx.CopyFromRows(b.rows[t.name])); err != nil {
					return fmt.Errorf("copy into %s: %w", t.name, err)
				}
			}
			return nil
		})
	}
	for _, t := range bulkTables {
		for _, row := range b.rows[t.name] {
			if _, err := w.stmts[t.name].ExecContext(ctx, row...); err != nil {
				return fmt.Errorf("insert into %s: %w", t.name, err)
			}
		}
	}
	return nil
}

// commit ends the writing and refreshes the planner's statistics.
func (w *bulkWriter) commit(ctx context.Context) error {
	if w.tx != nil {
		if err := w.tx.Commit(); err != nil {
			return err
		}
		w.tx = nil
	}
	_, err := w.st.DB().ExecContext(ctx, "ANALYZE")
	return err
}

func (w *bulkWriter) close() {
	if w.tx != nil {
		w.tx.Rollback()
	}
	if w.conn != nil {
		w.conn.Close()
	}
}
