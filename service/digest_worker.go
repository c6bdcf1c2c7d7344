package service

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"github.com/perfbot/perfbot/store"
)

// digestWorker builds a digest and mails it.
type digestWorker struct {
	river.WorkerDefaults[DigestJob]
	svc *Service
}

// Work builds the digest of the job's period and posts it to each target,
// once: a digest already recorded as posted is not posted again.
func (w *digestWorker) Work(ctx context.Context, job *river.Job[DigestJob]) error {
	s := w.svc
	if s.deps.Digest == nil {
		return river.JobCancel(errors.New("no digest builder configured"))
	}
	msg, err := s.deps.Digest(ctx, job.Args)
	if err != nil {
		return err
	}
	key := fmt.Sprintf("digest:%s@%s", job.Args.Name, job.Args.End.UTC().Format(time.RFC3339))
	msg.Key = key
	var errs []error
	for _, to := range job.Args.Targets {
		t := to.String()
		if p, err := s.st.GetPost(ctx, to.Venue, to.Where(), key); err == nil && p.Count > 0 {
			continue
		}
		link, err := s.deps.Poster.Post(ctx, to, msg)
		if err != nil {
			s.metrics.Inc("perfbot_post_failures_total", "venue", to.Venue)
			errs = append(errs, fmt.Errorf("post digest to %s: %w", t, err))
			continue
		}
		s.metrics.Inc("perfbot_digests_total")
		if err := s.st.RecordPost(ctx, store.Post{Venue: to.Venue, Target: to.Where(), JobKey: key, Link: link, State: "sent"}); err != nil {
			errs = append(errs, err)
		}
		s.log.Info("digest sent", "target", t, "link", link)
	}
	return errors.Join(errs...)
}
