package service

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/bisect"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/job"
	"github.com/perfbot/perfbot/job/jobspec"
)

// confirmArgs asks a second host to measure again the benchmarks that run
// RunID of Spec found worse, before the verdict is posted.
type confirmArgs struct {
	Spec  jobspec.Spec `json:"spec" river:"unique"`
	RunID int64        `json:"run_id" river:"unique"`
	// Bench names the benchmarks found worse.
	Bench []string `json:"bench"`
}

// Kind is the queue's name for confirm jobs.
func (confirmArgs) Kind() string { return "perfbot_confirm" }

// InsertOpts makes a run's confirmation unique.
func (confirmArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: rivertype.UniqueOptsByStateDefault()}}
}

// worseRows returns the benchmarks of cmp's first candidate found worse
// by at least minPct, in row order, without repeats, named as bisect.Name
// names them (no GOMAXPROCS suffix, so another host's rows match).
func worseRows(cmp *compare.Comparison, minPct float64) []string {
	var out []string
	seen := map[string]bool{}
	for _, row := range cmp.Rows {
		if row.Base == nil || len(row.Candidates) == 0 {
			continue
		}
		c := row.Candidates[0]
		if c.Presence != compare.Both || c.Verdict != compare.Worse || math.Abs(c.DeltaPct) < minPct {
			continue
		}
		if name := bisect.Name(row.Benchmark); !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	return out
}

// queueConfirm queues the confirmation of a finished run when
// service.confirm is set and the run found a benchmark worse by at least
// its min_change; the answer then says so instead of giving the verdict.
// It reports whether the confirm job now owns the answer.
func (s *Service) queueConfirm(ctx context.Context, log *slog.Logger, spec JobSpec, cmp *compare.Comparison, runID int64) bool {
	cf := s.cfg.Service.Confirm
	if cf == nil || spec.Track != "" || spec.Source == "confirm" || spec.Source == "bisect" || len(spec.Targets) == 0 || len(cmp.Candidates) != 1 {
		return false
	}
	names := worseRows(cmp, float64(cf.MinChange))
	if len(names) == 0 {
		return false
	}
	args := confirmArgs{Spec: spec, RunID: runID, Bench: names}
	_, duplicate, err := s.q.Insert(ctx, args, &river.InsertOpts{Queue: cf.Queue, MaxAttempts: s.cfg.Service.MaxAttempts})
	if err != nil {
		log.Error("queue confirmation; posting the verdict unconfirmed", "err", err)
		return false
	}
	log.Info("confirmation queued", "run", runID, "queue", cf.Queue, "benchmarks", names, "duplicate", duplicate)
	if duplicate {
		return true
	}
	status := "measured worse here (" + strings.Join(names, ", ") + "); confirming on a second host"
	if err := s.outbox.Put(ctx, spec.Targets, liveMessage(spec, answer.StatePending, status), false, time.Time{}); err != nil {
		log.Error("answer with the confirmation pending", "err", err)
	}
	return true
}

// confirmWorker measures again, on the host that takes service.confirm's
// queue, and posts the verdict.
type confirmWorker struct {
	river.WorkerDefaults[confirmArgs]
	svc *Service
}

// Timeout is the configured job timeout.
func (w *confirmWorker) Timeout(*river.Job[confirmArgs]) time.Duration {
	return w.svc.cfg.Service.JobTimeout
}

// Work reruns the worse benchmarks and puts the final answer under the
// request's key: the first host's comparison with a line saying each
// benchmark was confirmed, or, where this host disagrees, with those rows
// no longer called worse and a line saying so.
func (w *confirmWorker) Work(ctx context.Context, j *river.Job[confirmArgs]) error {
	s := w.svc
	a := j.Args
	host := s.cfg.Service.Name
	log := s.log.With("job", j.ID, "key", a.Spec.Key, "confirm", a.Bench, "host", host)
	cmp, err := s.st.Comparison(ctx, a.RunID)
	if err != nil {
		return fmt.Errorf("confirm: comparison of run %d: %w", a.RunID, err)
	}
	spec := a.Spec
	spec.Key, spec.Bench, spec.Source, spec.Targets = a.Spec.Key+"/confirm", bisect.BenchFilter(a.Bench), "confirm", nil
	again, err := s.deps.Benchmarker.Run(ctx, spec, func(job.Progress) {})
	var sec section
	if err != nil {
		if j.Attempt < j.MaxAttempts && ctx.Err() == nil {
			return fmt.Errorf("confirm on %s: %w", host, err)
		}
		log.Error("confirmation failed", "err", err)
		sec = plainSection(fmt.Sprintf("Not confirmed: the second host (%s) could not measure again: %v", host, err))
	} else {
		var text string
		cmp, text = confirmVerdict(cmp, again, a.Bench, host)
		sec = plainSection(text)
		log.Info("confirmation finished", "result", text)
	}
	msg := withSection(s.answers.Answer(ctx, a.Spec, cmp, "", a.RunID), sec)
	if perr := s.outbox.Put(context.WithoutCancel(ctx), a.Spec.Targets, s.deps.Scrub.Message(msg), true, time.Time{}); perr != nil {
		return fmt.Errorf("store answer of %s with its confirmation: %w", a.Spec.Key, perr)
	}
	return nil
}

// confirmVerdict compares the second host's measurement with the first's:
// a benchmark is confirmed when the second host also finds it worse. The
// rows of benchmarks not confirmed lose their worse verdict (they become
// noisy: the hosts disagree). It returns the comparison to render and the
// line to add.
func confirmVerdict(first, again *compare.Comparison, names []string, host string) (*compare.Comparison, string) {
	seen := map[string]compare.Candidate{}
	for _, row := range again.Rows {
		if row.Base != nil && len(row.Candidates) > 0 {
			name := bisect.Name(row.Benchmark)
			if _, ok := seen[name]; !ok || row.Candidates[0].Verdict == compare.Worse {
				seen[name] = row.Candidates[0]
			}
		}
	}
	var yes, no []string
	notConfirmed := map[string]bool{}
	for _, n := range names {
		c, ok := seen[n]
		switch {
		case ok && c.Presence == compare.Both && c.Verdict == compare.Worse:
			yes = append(yes, fmt.Sprintf("%s %+.0f%% (p=%.3g)", n, c.DeltaPct, c.P))
		case ok && c.Presence == compare.Both:
			no = append(no, fmt.Sprintf("%s %s, %+.0f%% (p=%.3g)", n, c.Verdict, c.DeltaPct, c.P))
			notConfirmed[n] = true
		default:
			no = append(no, n+" not measured")
			notConfirmed[n] = true
		}
	}
	var lines []string
	if len(yes) > 0 {
		lines = append(lines, fmt.Sprintf("Confirmed on a second host (%s): %s", host, strings.Join(yes, ", ")))
	}
	if len(no) > 0 {
		lines = append(lines, fmt.Sprintf("Regression not confirmed on a second host (%s): %s; those rows are marked noisy, not worse", host, strings.Join(no, ", ")))
	}
	if len(notConfirmed) == 0 {
		return first, strings.Join(lines, "\n")
	}
	out := *first
	out.Rows = append([]compare.Row(nil), first.Rows...)
	out.Summary = append([]compare.Tally(nil), first.Summary...)
	for i := range out.Rows {
		row := &out.Rows[i]
		if !notConfirmed[bisect.Name(row.Benchmark)] || len(row.Candidates) == 0 || row.Candidates[0].Verdict != compare.Worse {
			continue
		}
		row.Candidates = append([]compare.Candidate(nil), row.Candidates...)
		row.Candidates[0].Verdict = compare.Noisy
		for k := range out.Summary {
			if out.Summary[k].Variant == row.Candidates[0].Variant && out.Summary[k].Worse > 0 {
				out.Summary[k].Worse--
				out.Summary[k].Noisy++
			}
		}
	}
	out.Warnings = append(append([]string(nil), first.Warnings...), fmt.Sprintf("not confirmed on a second host (%s): %s", host, strings.Join(no, ", ")))
	return &out, strings.Join(lines, "\n")
}
