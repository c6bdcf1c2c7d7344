package bot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/review"
	"github.com/perfbot/perfbot/review/retry"
	"github.com/perfbot/perfbot/store"
)

// Delivery of answers. Every answer (queued, running, the result, a
// cancellation) is first written to the store's outbox, one row per request
// key and target holding the newest version; the delivery loop posts due
// rows through the Poster and records the outcome. A failed delivery is
// tried again with growing waits (deliveryBackoff) until
// service.delivery_retry_for has passed since the answer began waiting,
// across restarts, since the row outlives the process. A venue's refusal
// that will not pass (a 4xx answer, an SMTP 5xx reply, a venue not
// configured) marks the row failed with its reason at once; each process
// start tries the failed rows of the retry period once more, in case the
// configuration was mended.

// Delivery timing.
const (
	// deliveryLease is how long a process holds a claimed row; another
	// process may deliver it after that (its first claimant died).
	deliveryLease = 20 * time.Minute
	// deliveryTimeout bounds one delivery, the venue's own retries
	// included.
	deliveryTimeout = 15 * time.Minute
	// deliveryBatch is how many rows one round claims.
	deliveryBatch = 20
	// backoffBase and backoffMax bound the wait between two deliveries of
	// an answer: 30s, 1m, 2m, ... up to 30m, spread by ±20%.
	backoffBase = 30 * time.Second
	backoffMax  = 30 * time.Minute
)

// deliveryBackoff is the wait after the attempts-th failed delivery.
func deliveryBackoff(attempts int) time.Duration {
	d := backoffBase
	for i := 1; i < attempts && d < backoffMax; i++ {
		d *= 2
	}
	d = min(d, backoffMax)
	return time.Duration(float64(d) * (0.8 + 0.4*rand.Float64()))
}

// now is the service's clock (Deps.Now).
func (s *Service) now() time.Time { return s.deps.Now() }

// putAnswer writes msg to the outbox for each of targets and wakes the
// delivery loop. A non-final answer goes only to venues that show one
// (liveVenue). A non-zero newJob is when a new job under the key was
// queued (see store.PutAnswer).
func (s *Service) putAnswer(ctx context.Context, targets []string, msg answer.Answer, final bool, newJob time.Time) error {
	data, err := json.Marshal(msg)
	if err != nil {
		return fmt.Errorf("answer of %s: %w", msg.Key, err)
	}
	var errs []error
	for _, t := range targets {
		target, err := review.ParseTarget(t)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if !final && !liveVenue(target.Venue) {
			continue
		}
		if _, err := s.st.PutAnswer(ctx, msg.Key, target.String(), string(msg.State), final, data, s.now(), newJob); err != nil {
			errs = append(errs, err)
		}
	}
	s.wakeDelivery()
	return errors.Join(errs...)
}

func (s *Service) wakeDelivery() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// deliveryLoop delivers due answers until ctx ends: at once when this
// process put one, else at least every second.
func (s *Service) deliveryLoop(ctx context.Context) {
	if n, err := s.st.RearmAnswers(ctx, s.now().Add(-s.cfg.Service.DeliveryRetryFor), s.now()); err != nil {
		s.log.Error("rearm failed answers", "err", err)
	} else if n > 0 {
		s.log.Info("trying failed answers again", "answers", n)
	}
	every := min(time.Second, s.cfg.Service.Heartbeat)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if _, err := s.DeliverDue(ctx); err != nil && ctx.Err() == nil {
			s.log.Error("deliver answers", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-s.wake:
		}
	}
}

// DeliverDue delivers the answers due now, one after another, and returns
// how many it tried.
func (s *Service) DeliverDue(ctx context.Context) (int, error) {
	tried := 0
	for {
		due, err := s.st.ClaimAnswers(ctx, s.owner, s.now(), deliveryLease, deliveryBatch)
		if err != nil {
			return tried, err
		}
		if len(due) == 0 {
			return tried, nil
		}
		for _, a := range due {
			if ctx.Err() != nil {
				if err := s.st.ReleaseAnswer(context.WithoutCancel(ctx), a.Key, a.Target, s.owner); err != nil {
					s.log.Warn("release answer", "key", a.Key, "target", a.Target, "err", err)
				}
				continue
			}
			s.deliver(ctx, a)
			tried++
		}
		if ctx.Err() != nil {
			return tried, ctx.Err()
		}
	}
}

// deliver posts one claimed answer and records how it went.
func (s *Service) deliver(ctx context.Context, a store.Answer) {
	log := s.log.With("key", a.Key, "target", a.Target, "state", a.State, "version", a.Version)
	rec := context.WithoutCancel(ctx)
	target, perr := review.ParseTarget(a.Target)
	var msg answer.Answer
	if perr == nil {
		perr = json.Unmarshal(a.Message, &msg)
	}
	if perr != nil {
		s.giveUp(rec, log, a, "invalid", perr.Error())
		return
	}
	dctx, cancel := context.WithTimeout(ctx, deliveryTimeout)
	link, err := s.deps.Poster.Post(dctx, target, msg)
	cancel()
	now := s.now()
	switch {
	case err == nil:
		if err := s.st.AnswerDelivered(rec, a.Key, a.Target, a.Version, link, now, now.Add(s.cfg.Service.AnswerEditInterval)); err != nil {
			log.Error("record delivered answer", "err", err)
		}
		if err := s.st.RecordPost(rec, store.Post{Venue: target.Venue, Target: target.Where, JobKey: a.Key,
			Link: link, State: a.State}); err != nil {
			log.Error("record post", "err", err)
		}
		s.metrics.Inc("perfbot_posts_total", "venue", target.Venue)
		if a.Final {
			s.metrics.Inc("perfbot_answers_total", "venue", target.Venue, "result", "delivered")
		}
		log.Info("answer delivered", "link", link, "attempts", a.Attempts+1)
	case ctx.Err() != nil:
		// Stopping: the next process delivers it.
		if err := s.st.ReleaseAnswer(rec, a.Key, a.Target, s.owner); err != nil {
			log.Warn("release answer", "err", err)
		}
	case !retry.IsTransient(err):
		s.metrics.Inc("perfbot_post_failures_total", "venue", target.Venue)
		s.giveUp(rec, log, a, "refused", err.Error())
	case now.Sub(a.Since) >= s.cfg.Service.DeliveryRetryFor:
		s.metrics.Inc("perfbot_post_failures_total", "venue", target.Venue)
		s.giveUp(rec, log, a, "expired", fmt.Sprintf("not delivered after %v of retries: %v", s.cfg.Service.DeliveryRetryFor, err))
	default:
		s.metrics.Inc("perfbot_post_failures_total", "venue", target.Venue)
		next := now.Add(deliveryBackoff(a.Attempts + 1))
		if err := s.st.AnswerRetry(rec, a.Key, a.Target, err.Error(), now, next); err != nil {
			log.Error("record failed delivery", "err", err)
		}
		log.Warn("answer not delivered; will retry", "err", err, "attempts", a.Attempts+1, "retry_at", next.Format(time.RFC3339))
	}
}

// giveUp marks an answer failed for good, with its reason.
func (s *Service) giveUp(ctx context.Context, log *slog.Logger, a store.Answer, why, reason string) {
	venue := "unknown"
	if t, err := review.ParseTarget(a.Target); err == nil {
		venue = t.Venue
	}
	if err := s.st.AnswerFailed(ctx, a.Key, a.Target, a.Version, reason, s.now()); err != nil {
		log.Error("record given-up answer", "err", err)
	}
	s.metrics.Inc("perfbot_answers_failed_total", "venue", venue, "reason", why)
	log.Error("answer given up", "reason", reason, "why", why, "attempts", a.Attempts+1)
}
