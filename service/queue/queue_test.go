package queue

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/perfbot/perfbot/internal/pgtest"
	"github.com/perfbot/perfbot/job/jobspec"

	"github.com/perfbot/perfbot/store"
)

// TestQueueOnSQLite: in an insert-only queue on SQLite, the same request
// twice is one job; the waiting jobs are listed oldest first with their
// specs, each with its position in its own queue and the depth per queue;
// a cancelled job no longer waits.
func TestQueueOnSQLite(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, store.SQLite, filepath.Join(t.TempDir(), "perfbot.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	q, err := Open(ctx, st, "", Options{ID: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	insert := func(key, queue string) (int64, bool) {
		t.Helper()
		id, dup, err := q.InsertBench(ctx, jobspec.Spec{Key: key, CandidateRef: "pull/1/head"}, queue, 3)
		if err != nil {
			t.Fatal(err)
		}
		return id, dup
	}
	first, _ := insert("github:acme/store#1", "default")
	if again, dup := insert("github:acme/store#1", "default"); !dup || again != first {
		t.Errorf("the same key again: job %d, duplicate %v; want job %d, a duplicate", again, dup, first)
	}
	second, _ := insert("github:acme/store#2", "default")
	other, _ := insert("github:acme/store#3", "confirm")

	jobs, err := q.Jobs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 3 || jobs[0].ID != first || jobs[0].Spec.Key != "github:acme/store#1" || jobs[0].Spec.CandidateRef != "pull/1/head" {
		t.Fatalf("jobs = %+v; want three, the first one's spec read back", jobs)
	}
	for _, c := range []struct {
		id   int64
		want int
	}{{first, 1}, {second, 2}, {other, 1}} {
		if pos, running, err := q.Position(ctx, c.id); err != nil || pos != c.want || running != 0 {
			t.Errorf("job %d: position %d, %d running, %v; want %d", c.id, pos, running, err, c.want)
		}
	}
	depth, err := q.Depth(ctx)
	if err != nil || depth[[2]string{"default", "available"}] != 2 || depth[[2]string{"confirm", "available"}] != 1 {
		t.Errorf("depth = %v, %v", depth, err)
	}
	if err := q.Cancel(ctx, first); err != nil {
		t.Fatal(err)
	}
	if state, err := q.JobState(ctx, first); err != nil || state != "cancelled" {
		t.Errorf("cancelled job's state %q, %v", state, err)
	}
	if pos, _, err := q.Position(ctx, second); err != nil || pos != 1 {
		t.Errorf("after the first job's cancellation the second is at %d, %v; want 1", pos, err)
	}
	if state, err := q.JobState(ctx, 999999); err != nil || state != "" {
		t.Errorf("state of a job that does not exist: %q, %v", state, err)
	}
}

// TestPositionCounts: the position the database counts is the one
// PositionIn finds among the listed jobs, for waiting, running, cancelled
// and unknown jobs in two queues, with jobs of the queue running. On SQLite
// and PostgreSQL.
func TestPositionCounts(t *testing.T) {
	for _, driver := range []string{store.SQLite, store.Postgres} {
		t.Run(driver, func(t *testing.T) {
			ctx := context.Background()
			dsn := filepath.Join(t.TempDir(), "perfbot.db")
			if driver == store.Postgres {
				dsn = pgtest.Start(t).NewDB(t)
			}
			st, err := store.Open(ctx, driver, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			q, err := Open(ctx, st, dsn, Options{ID: "test"})
			if err != nil {
				t.Fatal(err)
			}
			defer q.Close()
			var ids []int64
			for i, queue := range []string{"default", "default", "confirm", "default", "default", "confirm", "default"} {
				id, _, err := q.InsertBench(ctx, jobspec.Spec{Key: fmt.Sprintf("github:acme/store#%d", i)}, queue, 3)
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, id)
			}
			running := `UPDATE river_job SET state = 'running', attempted_at = CURRENT_TIMESTAMP WHERE id = ?`
			if driver == store.Postgres {
				running = `UPDATE river_job SET state = 'running', attempted_at = now() WHERE id = $1`
			}
			for _, id := range []int64{ids[1], ids[4]} {
				if _, err := st.DB().ExecContext(ctx, running, id); err != nil {
					t.Fatal(err)
				}
			}
			if err := q.Cancel(ctx, ids[3]); err != nil {
				t.Fatal(err)
			}
			jobs, err := q.Jobs(ctx)
			if err != nil {
				t.Fatal(err)
			}
			want := map[int64][2]int{ids[0]: {1, 2}, ids[2]: {1, 0}, ids[5]: {2, 0}, ids[6]: {2, 2}}
			for _, id := range append(ids, 999999) {
				pos, run, err := q.Position(ctx, id)
				if err != nil {
					t.Fatal(err)
				}
				lpos, lrun, _ := PositionIn(jobs, id)
				if pos != lpos || run != lrun || [2]int{pos, run} != want[id] {
					t.Errorf("job %d: position %d, %d running; among the listed jobs %d, %d; want %v", id, pos, run, lpos, lrun, want[id])
				}
			}
		})
	}
}
