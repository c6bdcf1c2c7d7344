package service

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"github.com/perfbot/perfbot/digest"
	"github.com/perfbot/perfbot/store"
	"github.com/perfbot/perfbot/target"
)

// digestKey is the stable key of a digest: its schedule's name and the end
// of its period. The outbox holds one row per key and target, so a digest
// job retried, or run again after a restart, delivers the digest once.
func digestKey(job DigestJob) string { return digest.Key(job.Name, job.End) }

// digestWorker builds a digest and hands it to the outbox.
type digestWorker struct {
	river.WorkerDefaults[DigestJob]
	svc *Service
}

// Work builds the digest of the job's period and puts it in the outbox for
// each target, once: a target that holds the digest already (in the outbox,
// or recorded as posted) is not given it again. The outbox delivers it, with
// retries across restarts.
func (w *digestWorker) Work(ctx context.Context, job *river.Job[DigestJob]) error {
	s := w.svc
	if s.deps.Digest == nil {
		return river.JobCancel(errors.New("no digest builder configured"))
	}
	key := digestKey(job.Args)
	var todo []target.Target
	for _, to := range job.Args.Targets {
		if p, err := s.st.GetPost(ctx, to.Venue, to.Where(), key); err == nil && p.Count > 0 {
			continue
		}
		switch _, err := s.st.GetAnswer(ctx, key, to.String()); {
		case err == nil:
			continue
		case !errors.Is(err, store.ErrNotFound):
			return err
		}
		todo = append(todo, to)
	}
	if len(todo) == 0 {
		return nil
	}
	msg, err := s.deps.Digest(ctx, job.Args)
	if err != nil {
		return err
	}
	msg.Key = key
	if err := s.outbox.Put(ctx, todo, msg, true, time.Time{}); err != nil {
		return fmt.Errorf("put digest %s in the outbox: %w", key, err)
	}
	for _, to := range todo {
		s.log.Info("digest put in the outbox", "key", key, "target", to.String())
	}
	return nil
}
