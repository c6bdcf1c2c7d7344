package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/riverqueue/river"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/job"
	"github.com/perfbot/perfbot/provenance"
	"github.com/perfbot/perfbot/report"
	"github.com/perfbot/perfbot/service/queue"
	"github.com/perfbot/perfbot/store"
	"github.com/perfbot/perfbot/track"
)

// benchWorker runs benchmark jobs: it records the run, keeps its heartbeat,
// runs the benchmarker, stores the outcome and posts the answer.
type benchWorker struct {
	river.WorkerDefaults[queue.BenchArgs]
	svc *Service
}

// Timeout is the configured job timeout.
func (w *benchWorker) Timeout(*river.Job[queue.BenchArgs]) time.Duration {
	return w.svc.cfg.Service.JobTimeout
}

// Work runs one attempt of a job. An attempt after a crash finds the run
// the earlier attempt recorded: when that run had finished, only the
// posting is redone (and the poster edits in place), so the benchmark is
// not run twice and the answer is not posted twice.
func (w *benchWorker) Work(ctx context.Context, job *river.Job[queue.BenchArgs]) error {
	s := w.svc
	spec := JobSpec(job.Args)
	log := s.log.With("job", job.ID, "key", spec.Key, "attempt", job.Attempt)
	started := time.Now()

	if prev, err := s.st.RunByJob(ctx, job.ID); err == nil && prev.Status == store.StatusDone {
		log.Info("run already finished; answering")
		cmp, err := s.st.Comparison(ctx, prev.ID)
		if err != nil {
			return err
		}
		s.tracker.OpenFollowUp(ctx, log, spec, prev)
		if s.queueConfirm(ctx, log, spec, cmp, prev.ID) {
			return nil // the confirm job posts the verdict
		}
		return w.answer(ctx, log, spec, cmp, "", prev.ID)
	} else if err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}

	run := &store.Run{JobKey: spec.Key, JobID: job.ID, Suites: strings.Join(spec.Suites, " "),
		BaseRef: spec.BaseRef, CandidateRef: spec.CandidateRef, Patch: patchName(spec), Title: spec.Title, Worker: s.cfg.Service.Name}
	if len(spec.Targets) > 0 {
		run.Venue, run.Target = spec.Targets[0].Venue, spec.Targets[0].Where()
	}
	if spec.Track != "" {
		run.Venue, run.Target = store.VenueTrack, spec.Track
		s.keepTrackInstruments(ctx, log, &spec)
	}
	if _, err := s.st.StartRun(ctx, run); err != nil {
		return err
	}
	log.Info("benchmark job started", "run", run.ID, "worker", run.Worker)
	if err := s.outbox.Put(ctx, spec.Targets, liveMessage(spec, answer.StatePending, "starting"), false, time.Time{}); err != nil {
		log.Error("running answer", "err", err)
	}

	hbCtx, stopHeartbeat := context.WithCancel(ctx)
	hbDone := make(chan struct{}, 2)
	go func() {
		defer func() { hbDone <- struct{}{} }()
		s.heartbeat(hbCtx, run.ID)
	}()
	progress := newProgressReporter()
	go func() {
		defer func() { hbDone <- struct{}{} }()
		progress.loop(hbCtx, s, log, run.ID, spec)
	}()
	var cmp *compare.Comparison
	var files []answer.Attachment
	var runErr error
	if fb, ok := s.deps.Benchmarker.(FileBenchmarker); ok {
		cmp, files, runErr = fb.RunWithFiles(ctx, spec, progress.report)
	} else {
		cmp, runErr = s.deps.Benchmarker.Run(ctx, spec, progress.report)
	}
	stopHeartbeat()
	<-hbDone
	<-hbDone

	if runErr != nil && errors.Is(context.Cause(ctx), river.ErrJobCancelledRemotely) {
		// Cancelled on request: Cancel wrote the answer.
		run.Status, run.Error = store.StatusFailed, "cancelled"
		rec := context.WithoutCancel(ctx)
		if err := s.st.FinishRun(rec, run); err != nil {
			log.Error("record cancelled run", "err", err)
		}
		if err := s.answerCancelled(rec, spec, ""); err != nil {
			log.Error("cancelled answer", "err", err)
		}
		s.metrics.Inc("perfbot_jobs_total", "outcome", "cancelled")
		log.Info("benchmark job cancelled", "run", run.ID)
		return river.JobCancel(runErr)
	}
	if runErr != nil {
		outcome := "error"
		run.Status, run.Error = store.StatusFailed, runErr.Error()
		if err := s.st.FinishRun(context.WithoutCancel(ctx), run); err != nil {
			log.Error("record failed run", "err", err)
		}
		s.metrics.Observe("perfbot_job_duration_seconds", time.Since(started), "outcome", outcome)
		s.metrics.Inc("perfbot_jobs_total", "outcome", outcome)
		log.Error("benchmark job failed", "err", runErr)
		if job.Attempt >= job.MaxAttempts {
			// The last attempt: tell the requester instead of going silent.
			failed := &compare.Comparison{Failures: []provenance.Failure{{Stage: "setup", Message: runErr.Error()}}}
			if err := w.answer(context.WithoutCancel(ctx), log, spec, failed, string(answer.StateError), run.ID); err != nil {
				log.Error("failure notice", "err", err)
			}
		}
		return runErr
	}
	if err := s.st.SaveComparison(ctx, run.ID, cmp); err != nil {
		return err
	}
	if err := s.st.SaveArtifacts(ctx, run.ID, storeFiles(files)); err != nil {
		return err
	}
	for _, side := range cmp.Provenance.Sides {
		switch {
		case side.Variant == cmp.Base:
			run.BaseRef, run.BaseCommit = or(side.Ref, run.BaseRef), side.Commit
		case run.CandidateCommit == "":
			run.CandidateRef, run.CandidateCommit = or(side.Ref, run.CandidateRef), side.Commit
		}
	}
	if b, err := jsonOf(cmp.Provenance.Host); err == nil {
		run.Host = b
	}
	if b, err := jsonOf(cmp.Provenance); err == nil {
		run.Provenance = b
	}
	run.Status = store.StatusDone
	if err := s.st.FinishRun(ctx, run); err != nil {
		return err
	}
	s.metrics.Observe("perfbot_job_duration_seconds", time.Since(started), "outcome", "done")
	s.metrics.Inc("perfbot_jobs_total", "outcome", "done")
	log.Info("benchmark job finished", "run", run.ID, "took", time.Since(started).Round(time.Millisecond))
	if spec.Track != "" {
		s.tracker.AfterTrackedRun(ctx, log, spec.Track)
	}
	s.tracker.OpenFollowUp(ctx, log, spec, run)
	if s.queueConfirm(ctx, log, spec, cmp, run.ID) {
		return nil // the confirm job posts the verdict
	}
	if err := w.answer(ctx, log, spec, cmp, "", run.ID); err != nil {
		return err
	}
	s.queueBisect(ctx, log, spec, cmp, run.ID, run.BaseCommit, run.CandidateCommit)
	return nil
}

// answer renders the final answer and puts it in the outbox for every
// target, replacing the live answer; the delivery loop delivers it, with
// retries, and records each post. The job is done once the answer is
// stored: a venue that is down delays the answer, not the queue. Host
// paths are scrubbed from the comparison before it is rendered, and from
// the rendered answer.
func (w *benchWorker) answer(ctx context.Context, log *slog.Logger, spec JobSpec, cmp *compare.Comparison, state string, runID int64) error {
	msg := w.svc.answers.Answer(ctx, spec, cmp, state, runID)
	if err := w.svc.outbox.Put(ctx, spec.Targets, msg, true, time.Time{}); err != nil {
		return fmt.Errorf("store answer of %s: %w", spec.Key, err)
	}
	log.Info("answer stored for delivery", "targets", spec.Targets, "state", msg.State)
	return nil
}

// answers renders final answers: the comparison scrubbed of host paths,
// rendered, linked to its run's page, and scrubbed again.
type answers struct {
	url    string
	st     *store.Store
	scrub  *Scrubber
	render Renderer
}

// Answer renders a run's final answer to spec; a non-empty state
// overrides the comparison's.
func (a answers) Answer(ctx context.Context, spec JobSpec, cmp *compare.Comparison, state string, runID int64) answer.Answer {
	msg := a.scrub.Message(a.render(a.scrub.Comparison(cmp)))
	if url := RunURL(a.url, runID); url != "" {
		msg = report.LinkRun(msg, url, a.storedImages(ctx, runID))
	}
	msg.Key = spec.Key
	// The commit measured, else (nothing was measured) the one the
	// request was approved for.
	msg.Commit = or(report.MeasuredCommit(cmp), spec.CandidateCommit)
	if state != "" {
		msg.State = answer.State(state)
	}
	msg.InReplyTo, msg.References = spec.InReplyTo, spec.References
	if spec.Subject != "" {
		msg.Subject = spec.Subject // the thread's; the verdict is in the body
	}
	return msg
}

// storedImages counts the images (flame graphs) kept with a run.
func (a answers) storedImages(ctx context.Context, runID int64) int {
	files, err := a.st.Artifacts(ctx, runID)
	if err != nil {
		return 0
	}
	n := 0
	for _, f := range files {
		if strings.HasPrefix(f.ContentType, "image/") {
			n++
		}
	}
	return n
}

// keepTrackInstruments has a tracked run's suites set to auto keep the
// instrument the branch's earlier runs chose (track.KeptInstruments), so
// the branch's history is measured in one unit. A store that cannot say
// is logged, and the run chooses for itself.
func (s *Service) keepTrackInstruments(ctx context.Context, log *slog.Logger, spec *JobSpec) {
	b, ok := s.tracker.Branch(spec.Track)
	if !ok {
		return
	}
	keep, err := track.KeptInstruments(ctx, s.st, spec.Track, b.Branch)
	if err != nil {
		log.Error("instruments kept for the tracked branch", "track", spec.Track, "err", err)
		return
	}
	spec.KeepInstruments = keep
}

// storeFiles turns a benchmarker's files into the store's.
func storeFiles(files []answer.Attachment) []store.Artifact {
	var out []store.Artifact
	for _, f := range files {
		out = append(out, store.Artifact{Name: f.Name, ContentType: f.ContentType, Data: f.Data})
	}
	return out
}

func patchName(spec JobSpec) string {
	switch {
	case spec.PatchURL != "":
		return spec.PatchURL
	case spec.Patch != "":
		return "inline: " + spec.Title
	}
	return ""
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// progressReporter hands a running job's progress from the benchmarker
// (which must not block) to the store: the run's progress for Status, and
// the live answer, at most once per progressGap.
type progressReporter struct {
	mu     sync.Mutex
	latest *job.Progress
	signal chan struct{}
}

func newProgressReporter() *progressReporter {
	return &progressReporter{signal: make(chan struct{}, 1)}
}

// report is the job.ProgressFunc given to the benchmarker.
func (p *progressReporter) report(pr job.Progress) {
	p.mu.Lock()
	p.latest = &pr
	p.mu.Unlock()
	select {
	case p.signal <- struct{}{}:
	default:
	}
}

// loop records the latest progress until ctx ends.
func (p *progressReporter) loop(ctx context.Context, s *Service, log *slog.Logger, runID int64, spec JobSpec) {
	gap := min(s.cfg.Service.AnswerEditInterval, 5*time.Second)
	for {
		select {
		case <-ctx.Done():
			return
		case <-p.signal:
		}
		p.mu.Lock()
		pr := p.latest
		p.mu.Unlock()
		status := progressStatus(*pr)
		if err := s.st.SetRunProgress(ctx, runID, status); err != nil && ctx.Err() == nil {
			log.Warn("record progress", "err", err)
		}
		if err := s.outbox.Put(ctx, spec.Targets, liveMessage(spec, answer.StatePending, status), false, time.Time{}); err != nil && ctx.Err() == nil {
			log.Warn("running answer", "err", err)
		}
		t := time.NewTimer(gap)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}
