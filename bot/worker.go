package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/riverqueue/river"

	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/review"
	"github.com/perfbot/perfbot/store"
)

// benchWorker runs benchmark jobs: it records the run, keeps its heartbeat,
// runs the benchmarker, stores the outcome and posts the answer.
type benchWorker struct {
	river.WorkerDefaults[benchArgs]
	svc *Service
}

// Timeout is the configured job timeout.
func (w *benchWorker) Timeout(*river.Job[benchArgs]) time.Duration {
	return w.svc.cfg.Service.JobTimeout
}

// Work runs one attempt of a job. An attempt after a crash finds the run
// the earlier attempt recorded: when that run had finished, only the
// posting is redone (and the poster edits in place), so the benchmark is
// not run twice and the answer is not posted twice.
func (w *benchWorker) Work(ctx context.Context, job *river.Job[benchArgs]) error {
	s := w.svc
	spec := JobSpec(job.Args)
	log := s.log.With("job", job.ID, "key", spec.Key, "attempt", job.Attempt)
	started := time.Now()

	if prev, err := s.st.RunByJob(ctx, job.ID); err == nil && prev.Status == store.StatusDone {
		log.Info("run already finished; posting its answer")
		cmp, err := s.st.Comparison(ctx, prev.ID)
		if err != nil {
			return err
		}
		return w.post(ctx, log, spec, cmp, "", prev.ID)
	} else if err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}

	run := &store.Run{JobKey: spec.Key, JobID: job.ID, Suites: strings.Join(spec.Suites, " "),
		BaseRef: spec.BaseRef, CandidateRef: spec.CandidateRef, Patch: patchName(spec), Worker: s.cfg.Service.Name}
	if len(spec.Targets) > 0 {
		if t, err := review.ParseTarget(spec.Targets[0]); err == nil {
			run.Venue, run.Target = t.Venue, t.Where
		}
	}
	if _, err := s.st.StartRun(ctx, run); err != nil {
		return err
	}
	log.Info("benchmark job started", "run", run.ID, "worker", run.Worker)

	hbCtx, stopHeartbeat := context.WithCancel(ctx)
	hbDone := make(chan struct{})
	go func() {
		defer close(hbDone)
		s.heartbeat(hbCtx, run.ID)
	}()
	var cmp *compare.Comparison
	var files []review.Attachment
	var runErr error
	if fb, ok := s.deps.Benchmarker.(FileBenchmarker); ok {
		cmp, files, runErr = fb.RunWithFiles(ctx, spec, nil)
	} else {
		cmp, runErr = s.deps.Benchmarker.Run(ctx, spec, nil)
	}
	stopHeartbeat()
	<-hbDone

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
			failed := &compare.Comparison{Failures: []compare.Failure{{Stage: "setup", Message: runErr.Error()}}}
			if err := w.post(ctx, log, spec, failed, string(review.StateError), run.ID); err != nil {
				log.Error("post failure notice", "err", err)
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
	return w.post(ctx, log, spec, cmp, "", run.ID)
}

// post renders and posts the answer to every target, recording each post.
// Host paths are scrubbed from the comparison before it is rendered, and
// from the rendered answer.
func (w *benchWorker) post(ctx context.Context, log *slog.Logger, spec JobSpec, cmp *compare.Comparison, state string, runID int64) error {
	s := w.svc
	msg := s.deps.Scrub.Message(s.deps.Render(s.deps.Scrub.Comparison(cmp)))
	if url := RunURL(s.cfg.Service.URL, runID); url != "" {
		msg = LinkRun(msg, url, w.storedImages(ctx, runID))
	}
	msg.Key = spec.Key
	if state != "" {
		msg.State = review.State(state)
	}
	msg.InReplyTo, msg.References = spec.InReplyTo, spec.References
	if spec.Subject != "" {
		msg.Subject = spec.Subject // the thread's; the verdict is in the body
	}
	var errs []error
	for _, t := range spec.Targets {
		target, err := review.ParseTarget(t)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		link, err := s.deps.Poster.Post(ctx, target, msg)
		if err != nil {
			s.metrics.Inc("perfbot_post_failures_total", "venue", target.Venue)
			log.Error("post answer", "target", t, "err", err)
			errs = append(errs, fmt.Errorf("post to %s: %w", t, err))
			continue
		}
		s.metrics.Inc("perfbot_posts_total", "venue", target.Venue)
		if err := s.st.RecordPost(ctx, store.Post{Venue: target.Venue, Target: target.Where, JobKey: spec.Key,
			Link: link, State: string(msg.State)}); err != nil {
			errs = append(errs, err)
		}
		log.Info("answer posted", "target", t, "link", link)
	}
	return errors.Join(errs...)
}

// storedImages counts the images (flame graphs) kept with a run.
func (w *benchWorker) storedImages(ctx context.Context, runID int64) int {
	files, err := w.svc.st.Artifacts(ctx, runID)
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

// storeFiles turns a benchmarker's files into the store's.
func storeFiles(files []review.Attachment) []store.Artifact {
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
