// Package queue is perfbot's River job queue, kept in the store's database
// (SQLite or PostgreSQL): opening it with its schema brought up to date,
// inserting unique jobs, starting and stopping the workers a process runs,
// and reading the benchmark jobs waiting or running (their depth and each
// one's position). It knows what a benchmark job's arguments are, not how
// a job is run.
package queue

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/perfbot/perfbot/job/jobspec"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"

	"github.com/perfbot/perfbot/store"
)

// Options configure a Queue.
type Options struct {
	// ID names this process among the queue's clients.
	ID string
	// Work maps the queues this process works to their parallelism; nil
	// makes an insert-only queue.
	Work map[string]int
	// Workers implement the job kinds.
	Workers *river.Workers
	// JobTimeout cancels a job's context when it runs longer.
	JobTimeout time.Duration
	// RescueAfter is River's own backstop for jobs left running by a dead
	// worker whose run was never recorded; perfbot's heartbeat rescue acts
	// much sooner for recorded runs.
	RescueAfter time.Duration
	// PollInterval is how often workers look for new jobs when no
	// notification arrives (default 1s).
	PollInterval time.Duration
	Logger       *slog.Logger
}

// Queue is the River job queue in the store's database.
type Queue struct {
	st         *store.Store
	insert     func(ctx context.Context, args river.JobArgs) (id int64, duplicate bool, err error)
	insertOpts func(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (id int64, duplicate bool, err error)
	start      func(ctx context.Context) error
	stop       func(ctx context.Context) error
	cancel     func(ctx context.Context) error
	jobCancel  func(ctx context.Context, id int64) error
	close      func()
}

// Open opens the queue in the same database as st, bringing River's
// schema up to date. dsn is the PostgreSQL URL when st is on PostgreSQL.
func Open(ctx context.Context, st *store.Store, dsn string, opts Options) (*Queue, error) {
	cfg := &river.Config{
		ID:                   opts.ID,
		Workers:              opts.Workers,
		JobTimeout:           opts.JobTimeout,
		RescueStuckJobsAfter: opts.RescueAfter,
		FetchPollInterval:    opts.PollInterval,
		Logger:               opts.Logger,
		MaxAttempts:          0,
	}
	if len(opts.Work) > 0 {
		cfg.Queues = map[string]river.QueueConfig{}
		for name, n := range opts.Work {
			cfg.Queues[name] = river.QueueConfig{MaxWorkers: n}
		}
	}
	if cfg.RescueStuckJobsAfter > 0 && cfg.RescueStuckJobsAfter < cfg.JobTimeout {
		cfg.RescueStuckJobsAfter = cfg.JobTimeout + time.Minute
	}
	q := &Queue{st: st}
	switch st.Driver() {
	case store.SQLite:
		drv := riversqlite.New(st.DB())
		if err := migrateRiver(ctx, drv); err != nil {
			return nil, err
		}
		c, err := river.NewClient(drv, cfg)
		if err != nil {
			return nil, fmt.Errorf("queue: %w", err)
		}
		bind(q, c)
		q.close = func() {}
	case store.Postgres:
		pool, err := pgxpool.New(ctx, dsn)
		if err != nil {
			return nil, fmt.Errorf("queue: %w", err)
		}
		drv := riverpgxv5.New(pool)
		if err := migrateRiverPG(ctx, pool, drv); err != nil {
			pool.Close()
			return nil, err
		}
		c, err := river.NewClient(drv, cfg)
		if err != nil {
			pool.Close()
			return nil, fmt.Errorf("queue: %w", err)
		}
		bind(q, c)
		q.close = pool.Close
	default:
		return nil, fmt.Errorf("queue: unknown store driver %q", st.Driver())
	}
	return q, nil
}

func bind[TTx any](q *Queue, c *river.Client[TTx]) {
	q.insertOpts = func(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (int64, bool, error) {
		res, err := c.Insert(ctx, args, opts)
		if err != nil {
			return 0, false, err
		}
		return res.Job.ID, res.UniqueSkippedAsDuplicate, nil
	}
	q.insert = func(ctx context.Context, args river.JobArgs) (int64, bool, error) {
		return q.insertOpts(ctx, args, nil)
	}
	q.start = c.Start
	q.stop = c.Stop
	q.cancel = c.StopAndCancel
	q.jobCancel = func(ctx context.Context, id int64) error {
		_, err := c.JobCancel(ctx, id)
		return err
	}
}

func migrateRiver(ctx context.Context, drv *riversqlite.Driver) error {
	m, err := rivermigrate.New(drv, nil)
	if err != nil {
		return fmt.Errorf("queue schema: %w", err)
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("queue schema: %w", err)
	}
	return nil
}

// migrateRiverPG migrates under an advisory lock, so that workers starting
// together do not race. Each River migration runs in its own transaction
// (a new enum value cannot be used in the transaction that adds it), so the
// lock is a session lock held on one connection meanwhile.
func migrateRiverPG(ctx context.Context, pool *pgxpool.Pool, drv *riverpgxv5.Driver) error {
	m, err := rivermigrate.New[pgx.Tx](drv, nil)
	if err != nil {
		return fmt.Errorf("queue schema: %w", err)
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("queue schema: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock(72697665)`); err != nil {
		return fmt.Errorf("queue schema lock: %w", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(72697665)`)
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("queue schema: %w", err)
	}
	return nil
}

// Insert queues a job with opts overriding its kind's insert options.
func (q *Queue) Insert(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (id int64, duplicate bool, err error) {
	return q.insertOpts(ctx, args, opts)
}

// Cancel cancels a job: a waiting one does not run, a running one's
// context is cancelled.
func (q *Queue) Cancel(ctx context.Context, id int64) error { return q.jobCancel(ctx, id) }

// Enqueue queues a job. duplicate is true when a job with the same unique
// arguments (the same key) already exists, and nothing new was queued.
func (q *Queue) Enqueue(ctx context.Context, args river.JobArgs) (id int64, duplicate bool, err error) {
	return q.insert(ctx, args)
}

// Start starts working the configured queues.
func (q *Queue) Start(ctx context.Context) error { return q.start(ctx) }

// Stop waits for running jobs to finish and stops; when ctx ends first,
// it cancels the running jobs (they are retried later) and stops.
func (q *Queue) Stop(ctx context.Context) error {
	err := q.stop(ctx)
	if err != nil && ctx.Err() != nil {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		return q.cancel(cctx)
	}
	return err
}

// Close releases the queue's connections (after Stop).
func (q *Queue) Close() { q.close() }

// Depth counts jobs waiting (available, scheduled, retryable) or running
// per queue and state.
func (q *Queue) Depth(ctx context.Context) (map[[2]string]int, error) {
	rows, err := q.st.DB().QueryContext(ctx, `SELECT queue, state, COUNT(*) FROM river_job
		WHERE state IN ('available', 'scheduled', 'retryable', 'running') GROUP BY queue, state`)
	if err != nil {
		return nil, fmt.Errorf("queue depth: %w", err)
	}
	defer rows.Close()
	out := map[[2]string]int{}
	for rows.Next() {
		var queue, state string
		var n int
		if err := rows.Scan(&queue, &state, &n); err != nil {
			return nil, err
		}
		out[[2]string{queue, state}] = n
	}
	return out, rows.Err()
}

// Requeue makes a job left running by a dead worker available again.
// It reports whether the job was still marked running.
func (q *Queue) Requeue(ctx context.Context, jobID int64) (bool, error) {
	query := `UPDATE river_job SET state = 'available' WHERE id = ? AND state = 'running'`
	if q.st.Driver() == store.Postgres {
		query = `UPDATE river_job SET state = 'available' WHERE id = $1 AND state = 'running'`
	}
	res, err := q.st.DB().ExecContext(ctx, query, jobID)
	if err != nil {
		return false, fmt.Errorf("requeue job %d: %w", jobID, err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// JobState returns a job's queue state ("" when it no longer exists).
func (q *Queue) JobState(ctx context.Context, jobID int64) (string, error) {
	query := `SELECT state FROM river_job WHERE id = ?`
	if q.st.Driver() == store.Postgres {
		query = `SELECT state FROM river_job WHERE id = $1`
	}
	var state string
	err := q.st.DB().QueryRowContext(ctx, query, jobID).Scan(&state)
	if err == sql.ErrNoRows {
		return "", nil
	}
	return state, err
}

// InsertBench queues a benchmark job on the named queue.
func (q *Queue) InsertBench(ctx context.Context, spec jobspec.Spec, queue string, maxAttempts int) (int64, bool, error) {
	return q.insertOpts(ctx, BenchArgs(spec), &river.InsertOpts{Queue: queue, MaxAttempts: maxAttempts})
}

// Job is a benchmark job waiting or running in the queue.
type Job struct {
	ID    int64
	Queue string
	State string
	Spec  jobspec.Spec
}

// Jobs lists the benchmark jobs waiting or running, oldest first.
func (q *Queue) Jobs(ctx context.Context) ([]Job, error) { return Jobs(ctx, q.st) }

// Jobs lists the benchmark jobs waiting or running in st's queue, oldest
// first, for a process that does not open the queue ("perfbot status").
func Jobs(ctx context.Context, st *store.Store) ([]Job, error) {
	args := "args"
	if st.Driver() == store.SQLite {
		args = "json(args)" // River keeps SQLite's binary JSON
	}
	rows, err := st.DB().QueryContext(ctx, `SELECT id, queue, state, `+args+` FROM river_job
		WHERE kind = 'perfbot_benchmark' AND state IN ('available', 'scheduled', 'retryable', 'pending', 'running')
		ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("list benchmark jobs: %w", err)
	}
	defer rows.Close()
	var out []Job
	for rows.Next() {
		var j Job
		var data []byte
		if err := rows.Scan(&j.ID, &j.Queue, &j.State, &data); err != nil {
			return nil, fmt.Errorf("list benchmark jobs: %w", err)
		}
		if err := json.Unmarshal(data, &j.Spec); err != nil {
			return nil, fmt.Errorf("benchmark job %d: arguments: %w", j.ID, err)
		}
		out = append(out, j)
	}
	return out, rows.Err()
}

// Position returns where a waiting job stands in its queue (1: next to
// run; 0: not waiting any more) and how many jobs of that queue run now,
// as PositionIn does over Jobs, counted by the database from the job rows'
// queue, state and id without reading any job's arguments.
func (q *Queue) Position(ctx context.Context, jobID int64) (pos, running int, err error) {
	query := positionQuery
	if q.st.Driver() == store.Postgres {
		query = strings.Replace(query, "?", "$1", 1)
	}
	var p, r sql.NullInt64
	if err := q.st.DB().QueryRowContext(ctx, query, jobID).Scan(&p, &r); err != nil {
		return 0, 0, fmt.Errorf("position of job %d: %w", jobID, err)
	}
	return int(p.Int64), int(r.Int64), nil
}

// positionQuery counts, in the queue of the waiting benchmark job it is
// given, the benchmark jobs waiting up to it (the job included) and those
// running; both are NULL when the job waits no more.
const positionQuery = `SELECT
		SUM(CASE WHEN j.state <> 'running' AND j.id <= t.id THEN 1 ELSE 0 END),
		SUM(CASE WHEN j.state = 'running' THEN 1 ELSE 0 END)
	FROM river_job t JOIN river_job j ON j.queue = t.queue
	WHERE t.id = ? AND t.kind = 'perfbot_benchmark' AND t.state IN ('available', 'scheduled', 'retryable', 'pending')
		AND j.kind = 'perfbot_benchmark' AND j.state IN ('available', 'scheduled', 'retryable', 'pending', 'running')`

// PositionIn is Position among jobs, as Jobs lists them.
func PositionIn(jobs []Job, jobID int64) (pos, running int, err error) {
	var queue string
	for _, j := range jobs {
		if j.ID == jobID && j.State != "running" {
			queue = j.Queue
		}
	}
	if queue == "" {
		return 0, 0, nil // taken by a worker already, or gone
	}
	for _, j := range jobs {
		switch {
		case j.Queue != queue:
		case j.State == "running":
			running++
		case j.ID <= jobID:
			pos++
		}
	}
	return pos, running, nil
}

// BenchArgs is a jobspec.Spec as the queue's job arguments: the same JSON,
// with the queue's kind and uniqueness.
type BenchArgs jobspec.Spec

// Kind is the queue's name for benchmark jobs.
func (BenchArgs) Kind() string { return "perfbot_benchmark" }

// InsertOpts makes jobs unique by key for as long as they exist in the
// queue, in any state: the same request twice is one job.
func (BenchArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{UniqueOpts: river.UniqueOpts{
		ByArgs:  true,
		ByState: rivertype.UniqueOptsByStateDefault(),
	}}
}
