package service

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/service/queue"
	"github.com/perfbot/perfbot/store"
	"github.com/perfbot/perfbot/target"
)

type actorKey struct{}

// WithActor records in ctx who asks for a Cancel ("github:alice"), so the
// answer can say who cancelled the job.
func WithActor(ctx context.Context, who string) context.Context {
	return context.WithValue(ctx, actorKey{}, who)
}

func actorOf(ctx context.Context) string {
	who, _ := ctx.Value(actorKey{}).(string)
	return who
}

// Cancel cancels the queued and running benchmark jobs whose answer goes
// to target ("github:acme/store#12"). A waiting job is cancelled at once; a
// running one has its context cancelled, which kills its commands' process
// group. Each cancelled job's answer is edited to say so (and by whom,
// when ctx carries WithActor). It returns how many jobs it cancelled.
func (s *Service) Cancel(ctx context.Context, to target.Target) (int, error) {
	want := s.normalTarget(to)
	jobs, err := s.q.Jobs(ctx)
	if err != nil {
		return 0, err
	}
	who := actorOf(ctx)
	n := 0
	var errs []error
	for _, j := range jobs {
		if !s.answersTo(j.Spec, want) {
			continue
		}
		if done, err := finished(ctx, s.st, j); err != nil {
			return n, err
		} else if done {
			continue
		}
		if err := s.q.Cancel(ctx, j.ID); err != nil {
			errs = append(errs, fmt.Errorf("cancel job %d: %w", j.ID, err))
			continue
		}
		n++
		s.metrics.Inc("perfbot_jobs_cancelled_total")
		s.log.Info("job cancelled", "job", j.ID, "key", j.Spec.Key, "state", j.State, "by", who)
		if err := s.answerCancelled(ctx, j.Spec, who); err != nil {
			errs = append(errs, err)
		}
	}
	return n, errors.Join(errs...)
}

// answerCancelled makes a job's answer say it was cancelled, unless its
// final answer (a result that beat the cancellation) is already there.
func (s *Service) answerCancelled(ctx context.Context, spec JobSpec, who string) error {
	status := "the job was stopped before its result"
	if who != "" {
		status = "cancelled by " + who
	}
	var targets []target.Target
	for _, t := range spec.Targets {
		a, err := s.st.GetAnswer(ctx, spec.Key, t.String())
		switch {
		case errors.Is(err, store.ErrNotFound):
		case err != nil:
			return err
		case a.Final:
			continue
		}
		targets = append(targets, t)
	}
	return s.outbox.Put(ctx, targets, liveMessage(spec, answer.StateCancelled, status), true, time.Time{})
}

// Status says, in a few lines of plain text, how the jobs answering to
// target stand: each queued job with its position, each running job with
// its progress.
func (s *Service) Status(ctx context.Context, to target.Target) (string, error) {
	want := s.normalTarget(to)
	jobs, err := s.q.Jobs(ctx)
	if err != nil {
		return "", err
	}
	lines, err := describeJobs(ctx, s.st, jobs, func(j queue.Job) bool { return s.answersTo(j.Spec, want) }, false)
	if err != nil {
		return "", err
	}
	if len(lines) == 0 {
		return "no perfbot job is queued or running for " + to.String(), nil
	}
	return strings.Join(lines, "\n"), nil
}

// Jobs describes every benchmark job queued or running in st's queue, a
// line each, with its targets: what "perfbot status" prints.
func Jobs(ctx context.Context, st *store.Store) ([]string, error) {
	jobs, err := queue.Jobs(ctx, st)
	if err != nil {
		return nil, err
	}
	return describeJobs(ctx, st, jobs, func(queue.Job) bool { return true }, true)
}

// describeJobs says how each job that keep selects stands: a waiting job
// its position, a running one its progress; withTargets adds where its
// answer goes.
func describeJobs(ctx context.Context, st *store.Store, jobs []queue.Job, keep func(queue.Job) bool, withTargets bool) ([]string, error) {
	var lines []string
	for _, j := range jobs {
		if !keep(j) {
			continue
		}
		if done, err := finished(ctx, st, j); err != nil {
			return nil, err
		} else if done {
			continue
		}
		what := j.Spec.Title
		if what == "" {
			what = j.Spec.Key
		}
		if j.State == "running" {
			p, err := st.RunProgress(ctx, j.ID)
			if err != nil {
				return nil, err
			}
			if p == "" {
				p = "starting"
			}
			lines = append(lines, fmt.Sprintf("running: %s: %s%s", what, p, targetsOf(j, withTargets)))
			continue
		}
		pos, running, err := queue.PositionIn(jobs, j.ID)
		if err != nil {
			return nil, err
		}
		lines = append(lines, fmt.Sprintf("queued: %s: %s%s", what, queuedStatus(pos, running), targetsOf(j, withTargets)))
	}
	return lines, nil
}

func targetsOf(j queue.Job, show bool) string {
	if !show || len(j.Spec.Targets) == 0 {
		return ""
	}
	return " (answer to " + strings.Join(target.Strings(j.Spec.Targets), ", ") + ")"
}

// finished reports whether a job the queue still shows as running has
// recorded the end of its run: the queue marks it completed a moment later.
func finished(ctx context.Context, st *store.Store, j queue.Job) (bool, error) {
	if j.State != "running" {
		return false, nil
	}
	r, err := st.RunByJob(ctx, j.ID)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return r.Status != store.StatusRunning, nil
}

// normalTarget fills a bare GitHub "#N" with the configured repository,
// as the router does when it posts; without one it stays bare.
func (s *Service) normalTarget(t target.Target) target.Target {
	if t.Venue != target.GitHub {
		return t
	}
	if nt, err := t.WithRepo(s.cfg.Venues.GitHub.Repo); err == nil {
		return nt
	}
	return t
}

// answersTo reports whether one of spec's targets is want.
func (s *Service) answersTo(spec JobSpec, want target.Target) bool {
	for _, t := range spec.Targets {
		if s.normalTarget(t).Equal(want) {
			return true
		}
	}
	return false
}
