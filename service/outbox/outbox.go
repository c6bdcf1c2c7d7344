// Package outbox delivers answers durably. Every answer (queued, running,
// the result, a cancellation, a follow-up, a digest, a change point's
// announcement) is first written to the store's outbox, one
// row per request key and target holding the newest version; the delivery
// loop posts due rows through a Poster and records the outcome. A failed
// delivery is tried again with growing waits (backoff) until
// Options.RetryFor has passed since the answer began waiting, across
// restarts, since the row outlives the process. A venue's refusal that will
// not pass (a 4xx answer, an SMTP 5xx reply, a venue not configured) marks
// the row failed with its reason at once; each start of the loop tries the
// failed rows of the retry period once more, in case the configuration was
// mended. The outbox never runs jobs: it posts what it is handed.
package outbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/store"
	"github.com/perfbot/perfbot/target"
	"github.com/perfbot/perfbot/venue/retry"
)

// Poster posts an answer to a target. Posting the same Message.Key to the
// same target again edits the earlier answer. It returns a link to the
// post.
type Poster interface {
	Post(ctx context.Context, to target.Target, msg answer.Answer) (string, error)
}

// Metrics counts posts and given-up answers.
type Metrics interface {
	Inc(name string, labels ...string)
}

// Options are the outbox's timing and identity.
type Options struct {
	// Owner names this process in the outbox's claims.
	Owner string
	// RetryFor is how long an answer is retried (service.delivery_retry_for).
	RetryFor time.Duration
	// EditInterval spaces the edits of a live answer
	// (service.answer_edit_interval).
	EditInterval time.Duration
	// Every is the longest the loop waits between two looks at the
	// outbox (at most a second).
	Every time.Duration
	// Now is the clock of delivery (when an answer is due, how long it
	// has waited); nil means time.Now. Tests move it to ride out hours
	// of retries.
	Now func() time.Time
	// Delivered, when set, is told of each delivery, after it is
	// recorded (the service counts the digests delivered).
	Delivered func(key string, to target.Target)
	Log       *slog.Logger
}

// Outbox is the store's outbox and the loop delivering it.
type Outbox struct {
	st      *store.Store
	poster  Poster
	metrics Metrics
	opt     Options
	log     *slog.Logger
	// wake makes the loop look at the outbox at once.
	wake chan struct{}
}

// New returns the outbox kept in st, posting through poster.
func New(st *store.Store, poster Poster, metrics Metrics, opt Options) *Outbox {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Log == nil {
		opt.Log = slog.Default()
	}
	if opt.Every <= 0 || opt.Every > time.Second {
		opt.Every = time.Second
	}
	return &Outbox{st: st, poster: poster, metrics: metrics, opt: opt, log: opt.Log, wake: make(chan struct{}, 1)}
}

// Live reports whether a venue shows an answer before the result:
// GitHub, GitLab and JIRA edit one comment in place as the job goes on.
// Review Board cannot edit a published review and a mail cannot be unsent,
// so those get the final answer only.
func Live(venue string) bool { return venue == "github" || venue == "gitlab" || venue == "jira" }

// Live is the package's Live, for those that reach the outbox through an
// interface of their own.
func (s *Outbox) Live(venue string) bool { return Live(venue) }

// Delivery timing.
const (
	// claimLease is how long a process holds a claimed row; another
	// process may deliver it after that (its first claimant died).
	claimLease = 20 * time.Minute
	// postTimeout bounds one delivery, the venue's own retries
	// included.
	postTimeout = 15 * time.Minute
	// claimBatch is how many rows one round claims.
	claimBatch = 20
	// backoffBase and backoffMax bound the wait between two deliveries of
	// an answer: 30s, 1m, 2m, ... up to 30m, spread by ±20%.
	backoffBase = 30 * time.Second
	backoffMax  = 30 * time.Minute
)

// backoff is the wait after the attempts-th failed delivery.
func backoff(attempts int) time.Duration {
	d := backoffBase
	for i := 1; i < attempts && d < backoffMax; i++ {
		d *= 2
	}
	d = min(d, backoffMax)
	return time.Duration(float64(d) * (0.8 + 0.4*rand.Float64()))
}

// Put writes msg to the outbox for each of targets and wakes the
// delivery loop. A non-final answer goes only to venues that show one
// (Live). A non-zero newJob is when a new job under the key was
// queued (see store.PutAnswer). Putting the answer a target's row holds
// already, delivered or waiting, delivers nothing new: a retried job's
// answer is posted once.
func (s *Outbox) Put(ctx context.Context, targets []target.Target, msg answer.Answer, final bool, newJob time.Time) error {
	data, err := json.Marshal(msg)
	if err != nil {
		return fmt.Errorf("answer of %s: %w", msg.Key, err)
	}
	var errs []error
	for _, t := range targets {
		if !final && !Live(t.Venue) {
			continue
		}
		if _, err := s.st.PutAnswer(ctx, msg.Key, t.String(), string(msg.State), final, data, s.opt.Now(), newJob); err != nil {
			errs = append(errs, err)
		}
	}
	s.nudge()
	return errors.Join(errs...)
}

// nudge makes the delivery loop look at the outbox at once.
func (s *Outbox) nudge() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Run delivers due answers until ctx ends: at once when this
// process put one, else at least every second.
func (s *Outbox) Run(ctx context.Context) {
	if n, err := s.st.RearmAnswers(ctx, s.opt.Now().Add(-s.opt.RetryFor), s.opt.Now()); err != nil {
		s.log.Error("rearm failed answers", "err", err)
	} else if n > 0 {
		s.log.Info("trying failed answers again", "answers", n)
	}
	t := time.NewTicker(s.opt.Every)
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
func (s *Outbox) DeliverDue(ctx context.Context) (int, error) {
	tried := 0
	for {
		due, err := s.st.ClaimAnswers(ctx, s.opt.Owner, s.opt.Now(), claimLease, claimBatch)
		if err != nil {
			return tried, err
		}
		if len(due) == 0 {
			return tried, nil
		}
		for _, a := range due {
			if ctx.Err() != nil {
				if err := s.st.ReleaseAnswer(context.WithoutCancel(ctx), a.Key, a.Target, s.opt.Owner); err != nil {
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
func (s *Outbox) deliver(ctx context.Context, a store.Answer) {
	log := s.log.With("key", a.Key, "target", a.Target, "state", a.State, "version", a.Version)
	rec := context.WithoutCancel(ctx)
	// The row's target is text, as every version wrote it: read once here.
	to, perr := target.Parse(a.Target)
	var msg answer.Answer
	if perr == nil {
		perr = json.Unmarshal(a.Message, &msg)
	}
	if perr != nil {
		s.giveUp(rec, log, a, to.Venue, "invalid", perr.Error())
		return
	}
	dctx, cancel := context.WithTimeout(ctx, postTimeout)
	link, err := s.poster.Post(dctx, to, msg)
	cancel()
	now := s.opt.Now()
	switch {
	case err == nil:
		if err := s.st.AnswerDelivered(rec, a.Key, a.Target, a.Version, link, now, now.Add(s.opt.EditInterval)); err != nil {
			log.Error("record delivered answer", "err", err)
		}
		if err := s.st.RecordPost(rec, store.Post{Venue: to.Venue, Target: to.Where(), JobKey: a.Key,
			Link: link, State: a.State}); err != nil {
			log.Error("record post", "err", err)
		}
		s.metrics.Inc("perfbot_posts_total", "venue", to.Venue)
		if a.Final {
			s.metrics.Inc("perfbot_answers_total", "venue", to.Venue, "result", "delivered")
		}
		if s.opt.Delivered != nil {
			s.opt.Delivered(a.Key, to)
		}
		log.Info("answer delivered", "link", link, "attempts", a.Attempts+1)
	case ctx.Err() != nil:
		// Stopping: the next process delivers it.
		if err := s.st.ReleaseAnswer(rec, a.Key, a.Target, s.opt.Owner); err != nil {
			log.Warn("release answer", "err", err)
		}
	case !retry.IsTransient(err):
		s.metrics.Inc("perfbot_post_failures_total", "venue", to.Venue)
		s.giveUp(rec, log, a, to.Venue, "refused", err.Error())
	case now.Sub(a.Since) >= s.opt.RetryFor:
		s.metrics.Inc("perfbot_post_failures_total", "venue", to.Venue)
		s.giveUp(rec, log, a, to.Venue, "expired", fmt.Sprintf("not delivered after %v of retries: %v", s.opt.RetryFor, err))
	default:
		s.metrics.Inc("perfbot_post_failures_total", "venue", to.Venue)
		next := now.Add(backoff(a.Attempts + 1))
		if err := s.st.AnswerRetry(rec, a.Key, a.Target, err.Error(), now, next); err != nil {
			log.Error("record failed delivery", "err", err)
		}
		log.Warn("answer not delivered; will retry", "err", err, "attempts", a.Attempts+1, "retry_at", next.Format(time.RFC3339))
	}
}

// giveUp marks an answer to venueName ("" when its target is unreadable)
// failed for good, with its reason.
func (s *Outbox) giveUp(ctx context.Context, log *slog.Logger, a store.Answer, venueName, why, reason string) {
	if venueName == "" {
		venueName = "unknown"
	}
	if err := s.st.AnswerFailed(ctx, a.Key, a.Target, a.Version, reason, s.opt.Now()); err != nil {
		log.Error("record given-up answer", "err", err)
	}
	s.metrics.Inc("perfbot_answers_failed_total", "venue", venueName, "reason", why)
	log.Error("answer given up", "reason", reason, "why", why, "attempts", a.Attempts+1)
}
