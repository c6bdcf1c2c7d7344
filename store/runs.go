package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Run statuses.
const (
	StatusQueued  = "queued"
	StatusRunning = "running"
	StatusDone    = "done"
	StatusFailed  = "failed"
)

// Run is one benchmark job's record: what was asked, where the answer goes,
// how far it got.
type Run struct {
	ID int64
	// JobKey identifies the request: the same request twice has one key.
	JobKey string
	// JobID is the queue's job id, when the run came from the queue.
	JobID int64
	// Venue and Target say where the answer goes ("github",
	// "acme/store#12").
	Venue, Target string
	// Suites are the suites asked for, space separated.
	Suites string
	// BaseRef, BaseCommit, CandidateRef and CandidateCommit say what was
	// compared; Patch names the patch applied to the candidate, if any.
	BaseRef, BaseCommit           string
	CandidateRef, CandidateCommit string
	Patch                         string
	// Title names the request as people know it: the pull request's
	// title, the mail's subject, the JIRA issue's summary, the Gerrit
	// change's subject; empty when the intake gave none.
	Title  string
	Status string
	Error  string
	// Attempt counts how many times the job was started.
	Attempt int
	// Worker names the process that last ran it.
	Worker                     string
	Created, Started, Finished time.Time
	Heartbeat                  time.Time
	Host, Provenance           json.RawMessage
}

// ErrNotFound is returned when a looked-up row does not exist.
var ErrNotFound = errors.New("not found")

// StartRun records that a queued job is starting: it creates the run for
// r.JobID, or, when the job was started before (a retry after a crash),
// marks the existing run running again and counts the attempt. It returns
// the run's id.
func (s *Store) StartRun(ctx context.Context, r *Run) (int64, error) {
	now := time.Now()
	var id int64
	err := s.queryRow(ctx, `SELECT id FROM runs WHERE job_id = ?`, r.JobID).Scan(&id)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		err = s.queryRow(ctx, `INSERT INTO runs (job_key, job_id, venue, target, suites, base_ref, base_commit,
			candidate_ref, candidate_commit, patch, title, status, attempt, worker, created_at, started_at, heartbeat_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?) RETURNING id`,
			r.JobKey, r.JobID, r.Venue, r.Target, r.Suites, r.BaseRef, r.BaseCommit, r.CandidateRef,
			r.CandidateCommit, r.Patch, r.Title, StatusRunning, r.Worker, fmtTime(now), fmtTime(now), fmtTime(now)).Scan(&id)
		if err != nil {
			return 0, fmt.Errorf("create run for job %d: %w", r.JobID, err)
		}
	case err != nil:
		return 0, fmt.Errorf("find run for job %d: %w", r.JobID, err)
	default:
		if _, err := s.exec(ctx, `UPDATE runs SET status = ?, attempt = attempt + 1, worker = ?, started_at = ?,
			heartbeat_at = ?, error = '' WHERE id = ?`,
			StatusRunning, r.Worker, fmtTime(now), fmtTime(now), id); err != nil {
			return 0, fmt.Errorf("restart run %d: %w", id, err)
		}
	}
	r.ID = id
	return id, nil
}

// Heartbeat records that the run's worker is alive.
func (s *Store) Heartbeat(ctx context.Context, runID int64) error {
	_, err := s.exec(ctx, `UPDATE runs SET heartbeat_at = ? WHERE id = ? AND status = ?`,
		fmtTime(time.Now()), runID, StatusRunning)
	return err
}

// FinishRun records the run's end: StatusDone or StatusFailed with a reason,
// and the refs and host the benchmarker resolved.
func (s *Store) FinishRun(ctx context.Context, r *Run) error {
	host, prov := jsonOr(r.Host), jsonOr(r.Provenance)
	_, err := s.exec(ctx, `UPDATE runs SET status = ?, error = ?, finished_at = ?, base_ref = ?, base_commit = ?,
		candidate_ref = ?, candidate_commit = ?, host_json = ?, provenance_json = ? WHERE id = ?`,
		r.Status, r.Error, fmtTime(time.Now()), r.BaseRef, r.BaseCommit, r.CandidateRef, r.CandidateCommit,
		host, prov, r.ID)
	if err != nil {
		return fmt.Errorf("finish run %d: %w", r.ID, err)
	}
	return nil
}

func jsonOr(m json.RawMessage) string {
	if len(m) == 0 {
		return "{}"
	}
	return string(m)
}

// StaleRuns returns the runs still marked running whose last heartbeat is
// older than before: their worker died.
func (s *Store) StaleRuns(ctx context.Context, before time.Time) ([]Run, error) {
	return s.runs(ctx, `WHERE status = ? AND heartbeat_at < ? ORDER BY id`, StatusRunning, fmtTime(before))
}

// GetRun returns one run by id.
func (s *Store) GetRun(ctx context.Context, id int64) (*Run, error) {
	rs, err := s.runs(ctx, `WHERE id = ?`, id)
	if err != nil {
		return nil, err
	}
	if len(rs) == 0 {
		return nil, fmt.Errorf("run %d: %w", id, ErrNotFound)
	}
	return &rs[0], nil
}

// RunsByKey returns the runs of a job key, oldest first.
func (s *Store) RunsByKey(ctx context.Context, key string) ([]Run, error) {
	return s.runs(ctx, `WHERE job_key = ? ORDER BY id`, key)
}

// RunsFinishedBetween returns the runs that finished in [from, to), oldest
// first.
func (s *Store) RunsFinishedBetween(ctx context.Context, from, to time.Time) ([]Run, error) {
	return s.runs(ctx, `WHERE status = ? AND finished_at >= ? AND finished_at < ? ORDER BY finished_at, id`,
		StatusDone, fmtTime(from), fmtTime(to))
}

func (s *Store) runs(ctx context.Context, where string, args ...any) ([]Run, error) {
	rows, err := s.query(ctx, `SELECT id, job_key, COALESCE(job_id, 0), venue, target, suites, base_ref, base_commit,
		candidate_ref, candidate_commit, patch, title, status, error, attempt, worker, created_at, started_at,
		finished_at, heartbeat_at, host_json, provenance_json FROM runs `+where, args...)
	if err != nil {
		return nil, fmt.Errorf("read runs: %w", err)
	}
	defer rows.Close()
	var out []Run
	for rows.Next() {
		var r Run
		var created, started, finished, hb sql.NullString
		var host, prov string
		if err := rows.Scan(&r.ID, &r.JobKey, &r.JobID, &r.Venue, &r.Target, &r.Suites, &r.BaseRef, &r.BaseCommit,
			&r.CandidateRef, &r.CandidateCommit, &r.Patch, &r.Title, &r.Status, &r.Error, &r.Attempt, &r.Worker,
			&created, &started, &finished, &hb, &host, &prov); err != nil {
			return nil, fmt.Errorf("read runs: %w", err)
		}
		for _, p := range []struct {
			dst *time.Time
			src sql.NullString
		}{{&r.Created, created}, {&r.Started, started}, {&r.Finished, finished}, {&r.Heartbeat, hb}} {
			t, err := parseTime(p.src)
			if err != nil {
				return nil, fmt.Errorf("run %d: %w", r.ID, err)
			}
			*p.dst = t
		}
		r.Host, r.Provenance = json.RawMessage(host), json.RawMessage(prov)
		out = append(out, r)
	}
	return out, rows.Err()
}

// RunByJob returns the run of a queue job, or ErrNotFound.
func (s *Store) RunByJob(ctx context.Context, jobID int64) (*Run, error) {
	rs, err := s.runs(ctx, `WHERE job_id = ?`, jobID)
	if err != nil {
		return nil, err
	}
	if len(rs) == 0 {
		return nil, fmt.Errorf("run of job %d: %w", jobID, ErrNotFound)
	}
	return &rs[0], nil
}

// AbandonRun marks a run whose worker died as queued again, with the
// reason; the next attempt's StartRun marks it running.
func (s *Store) AbandonRun(ctx context.Context, id int64, reason string) error {
	_, err := s.exec(ctx, `UPDATE runs SET status = ?, error = ? WHERE id = ? AND status = ?`,
		StatusQueued, reason, id, StatusRunning)
	return err
}

// LastDoneRun returns the most recently finished run whose job key starts
// with prefix (such as a schedule's previous nightly run), or ErrNotFound.
func (s *Store) LastDoneRun(ctx context.Context, prefix string) (*Run, error) {
	rs, err := s.runs(ctx, `WHERE status = ? AND job_key LIKE ? ESCAPE '!' ORDER BY finished_at DESC, id DESC LIMIT 1`,
		StatusDone, likePrefix(prefix))
	if err != nil {
		return nil, err
	}
	if len(rs) == 0 {
		return nil, fmt.Errorf("finished run with key %s*: %w", prefix, ErrNotFound)
	}
	return &rs[0], nil
}

// likePrefix escapes LIKE's wildcards in prefix and appends "%". The
// escape character is declared in the query's ESCAPE clause on both
// databases; here it is "!".
func likePrefix(prefix string) string {
	r := strings.NewReplacer("!", "!!", "%", "!%", "_", "!_")
	return r.Replace(prefix) + "%"
}
