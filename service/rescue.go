package service

import (
	"context"
	"fmt"
	"time"
)

// heartbeat records every Heartbeat interval that the run's worker lives,
// until ctx ends.
func (s *Service) heartbeat(ctx context.Context, runID int64) {
	t := time.NewTicker(s.cfg.Service.Heartbeat)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := s.st.Heartbeat(ctx, runID); err != nil && ctx.Err() == nil {
				s.log.Warn("heartbeat", "run", runID, "err", err)
			}
		}
	}
}

// rescueLoop hands the jobs of dead workers to live ones. A benchmark job
// may rightly run for hours, so River's time-based rescue (which must wait
// longer than the longest job) would leave a crashed job stuck for that
// long; instead a run whose heartbeat is older than StaleAfter is made
// available again, and the next worker to take it runs it again.
func (s *Service) rescueLoop(ctx context.Context) {
	t := time.NewTicker(s.cfg.Service.Heartbeat)
	defer t.Stop()
	for {
		if err := s.rescueOnce(ctx); err != nil && ctx.Err() == nil {
			s.log.Error("rescue stale jobs", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (s *Service) rescueOnce(ctx context.Context) error {
	stale, err := s.st.StaleRuns(ctx, time.Now().Add(-s.cfg.Service.StaleAfter))
	if err != nil {
		return err
	}
	for _, r := range stale {
		state, err := s.q.JobState(ctx, r.JobID)
		if err != nil {
			return err
		}
		requeued := false
		if state == "running" {
			if requeued, err = s.q.Requeue(ctx, r.JobID); err != nil {
				return err
			}
		}
		reason := fmt.Sprintf("worker %s stopped responding (last heartbeat %s)", r.Worker, r.Heartbeat.Format(time.RFC3339))
		if err := s.st.AbandonRun(ctx, r.ID, reason); err != nil {
			return err
		}
		if requeued {
			s.metrics.Inc("perfbot_jobs_rescued_total")
			s.log.Warn("job handed to another worker", "job", r.JobID, "run", r.ID, "key", r.JobKey, "reason", reason)
		}
	}
	return nil
}

// pruneLoop forgets old webhook delivery ids, the records of throttled
// replies ("reply:..." claims, a day after they were made) and answers
// delivered or given up a week ago, once an hour.
func (s *Service) pruneLoop(ctx context.Context) {
	t := time.NewTicker(time.Hour)
	defer t.Stop()
	for {
		if _, err := s.st.PruneDeliveries(ctx, time.Now().Add(-7*24*time.Hour)); err != nil && ctx.Err() == nil {
			s.log.Warn("prune deliveries", "err", err)
		}
		if _, err := s.st.PruneClaims(ctx, "reply:", time.Now().Add(-24*time.Hour)); err != nil && ctx.Err() == nil {
			s.log.Warn("prune reply claims", "err", err)
		}
		if _, err := s.st.PruneAnswers(ctx, s.now().Add(-7*24*time.Hour)); err != nil && ctx.Err() == nil {
			s.log.Warn("prune answers", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
