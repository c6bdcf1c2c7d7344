// Package intake is the one way a request becomes a benchmark job. Every
// venue (the GitHub webhook and poll, JIRA, Review Board, mail, the
// schedules) builds a Request and hands it to Admitter.Admit, which
// de-duplicates it, asks the trigger policy, and either answers a refusal
// (throttled) or queues the job, and counts and logs the outcome once.
//
// The package knows neither the service nor its queue: it hands a jobspec.Spec
// to the Enqueuer it declares, posts through a Poster and counts through
// Metrics; the service satisfies all three.
package intake

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/job/jobspec"
	"github.com/perfbot/perfbot/target"
	"github.com/perfbot/perfbot/trigger"
)

// Enqueuer queues benchmark jobs. duplicate is true when a job with the
// same key exists already and nothing new was queued.
type Enqueuer interface {
	Enqueue(ctx context.Context, job jobspec.Spec) (id int64, duplicate bool, err error)
}

// Tested remembers the (venue, item, revision) triples already taken in;
// *store.Store is one.
type Tested interface {
	MarkTested(ctx context.Context, venue, item, revision, jobKey string) (bool, error)
	UnmarkTested(ctx context.Context, venue, item, revision string) error
}

// Claims rations replies: a claim on a name succeeds at most once per
// period; *store.Store is one.
type Claims interface {
	ClaimEvery(ctx context.Context, name string, now time.Time, every time.Duration) (bool, error)
	Unclaim(ctx context.Context, name string, at time.Time) error
}

// Poster posts an answer to a target, editing the earlier post with the
// same key.
type Poster interface {
	Post(ctx context.Context, to target.Target, msg answer.Answer) (string, error)
}

// Metrics counts events by label pairs.
type Metrics interface {
	Inc(name string, labels ...string)
}

// Controller acts on the jobs of one target ("github:acme/store#12"):
// Cancel cancels the queued and running ones and says how many; Status
// describes each queued or running one in a short text.
type Controller interface {
	Cancel(ctx context.Context, to target.Target) (int, error)
	Status(ctx context.Context, to target.Target) (string, error)
}

// Marker marks, for who, the verdicts of benches in the latest finished
// run answered to target ("github:acme/store#12") as false alarms, and
// returns the reply to post: what was marked and the thresholds it set, or
// why nothing was (no such run, a name that matches no flagged verdict).
// An error is a failure to record, not a mistake of the request.
type Marker interface {
	MarkFalseAlarm(ctx context.Context, to target.Target, who string, benches []string, reason string) (string, error)
}

// Outcome is what became of a request.
type Outcome string

// Outcomes of Admit (and of the venues' own handling).
const (
	Queued    Outcome = "queued"    // a new job was queued
	Duplicate Outcome = "duplicate" // the job was in the queue already
	Seen      Outcome = "seen"      // the item and revision were taken in before
	Refused   Outcome = "refused"   // the policy refused; the refusal was answered
	Throttled Outcome = "throttled" // refused, the answer not posted: one went to the same place lately
	Skipped   Outcome = "skipped"   // Prepare found nothing to run (ErrSkip)
	Ignored   Outcome = "ignored"   // not a request (no command, a bot, another repository)
	Invalid   Outcome = "invalid"   // a malformed command, answered with the usage
	Answered  Outcome = "answered"  // a command other than run (help, status, cancel) was answered
)

// ErrSkip, wrapped in Prepare's error, means the request cannot be run;
// it is logged, not returned, and Once is forgotten so that the request is
// taken in again when the venue lists it again.
var ErrSkip = errors.New("nothing to run")

// ErrAnswered, wrapped in Prepare's error, means Prepare found that the
// request cannot be run and answered it itself (an attachment that is not
// a patch); the request stays taken in, so it is not answered twice.
var ErrAnswered = errors.New("answered without a run")

// Once names what a request is about, to take it in once:
// (venue, item, revision), such as ("jira", "STORE-12", "10042").
type Once struct {
	Venue, Item, Revision string
}

// Request is one request for a benchmark job.
type Request struct {
	// Job is the job to queue; Job.Source labels the metrics.
	Job jobspec.Spec
	// Once, when set, is recorded before anything else: a request already
	// recorded is Seen. It is forgotten again when the request fails, so
	// that the next delivery or poll takes it in afresh.
	Once *Once
	// Decide applies the trigger policy; nil means allowed (merged code,
	// schedules).
	Decide func(ctx context.Context) (trigger.Decision, error)
	// Refuse answers a refusal with the policy's text; nil means a
	// refusal is only logged. Throttle, when set, names the answer (kind,
	// place and user): one such answer per RefusalEvery, the others are
	// counted as Throttled.
	Refuse   func(ctx context.Context, text string) error
	Throttle string
	// Prepare completes an allowed job before it is queued (downloads the
	// patch); an error wrapping ErrSkip ends the request as Skipped.
	Prepare func(ctx context.Context, spec *jobspec.Spec) error
}

// Admitter admits requests. Queue is required; the rest may be nil.
type Admitter struct {
	Queue   Enqueuer
	Tested  Tested
	Claims  Claims
	Poster  Poster
	Metrics Metrics
	Log     *slog.Logger
	// RefusalEvery is the least time between two throttled answers of one
	// kind to one user in one place (default an hour).
	RefusalEvery time.Duration
}

func (a *Admitter) log() *slog.Logger {
	if a.Log == nil {
		return slog.Default()
	}
	return a.Log
}

// Count adds one to a counter, when there are metrics.
func (a *Admitter) Count(name string, labels ...string) {
	if a.Metrics != nil {
		a.Metrics.Inc(name, labels...)
	}
}

// Admit takes one request in: it records it (Once), asks the policy,
// answers a refusal or prepares and queues the job, and counts the outcome
// in perfbot_requests_total{source,result} (a request Seen before is
// neither counted nor logged again). An error means the request
// was not taken in and should come again; Once is then forgotten.
func (a *Admitter) Admit(ctx context.Context, r Request) (Outcome, error) {
	out, err := a.admit(ctx, r)
	log := a.log().With("key", r.Job.Key, "source", r.Job.Source)
	if out == Seen {
		// Polls list what they took in before, every time: not a new
		// request.
		log.Debug("request seen before")
		return out, err
	}
	result := string(out)
	if err != nil {
		result = "error"
	}
	a.Count("perfbot_requests_total", "source", r.Job.Source, "result", result)
	if err != nil {
		log.Warn("request not taken in", "err", err)
	} else {
		log.Info("request "+result, "targets", r.Job.Targets)
	}
	return out, err
}

func (a *Admitter) admit(ctx context.Context, r Request) (Outcome, error) {
	if r.Job.Key == "" {
		return "", errors.New("request without a job key")
	}
	if r.Once != nil && a.Tested != nil {
		fresh, err := a.Tested.MarkTested(ctx, r.Once.Venue, r.Once.Item, r.Once.Revision, r.Job.Key)
		if err != nil {
			return "", err
		}
		if !fresh {
			return Seen, nil
		}
	}
	out, err := a.decideAndQueue(ctx, r)
	if (err != nil || out == Skipped) && r.Once != nil && a.Tested != nil {
		if uerr := a.Tested.UnmarkTested(context.WithoutCancel(ctx), r.Once.Venue, r.Once.Item, r.Once.Revision); uerr != nil {
			err = errors.Join(err, uerr)
		}
	}
	return out, err
}

func (a *Admitter) decideAndQueue(ctx context.Context, r Request) (Outcome, error) {
	spec := r.Job
	if r.Decide != nil {
		d, err := r.Decide(ctx)
		if err != nil {
			return "", err
		}
		decision := "allowed"
		if !d.Allowed {
			decision = "refused"
		}
		a.Count("perfbot_trigger_decisions_total", "venue", spec.Source, "decision", decision)
		a.log().Info("trigger policy: "+decision, "key", spec.Key, "requester", spec.Requester, "reason", d.Reason)
		if !d.Allowed {
			return a.refuse(ctx, r, d.Refusal)
		}
	}
	if r.Prepare != nil {
		if err := r.Prepare(ctx, &spec); err != nil {
			if errors.Is(err, ErrAnswered) {
				a.log().Warn("request answered without a run", "key", spec.Key, "reason", err)
				return Answered, nil
			}
			if errors.Is(err, ErrSkip) {
				a.log().Warn("request skipped", "key", spec.Key, "reason", err)
				return Skipped, nil
			}
			return "", err
		}
	}
	_, dup, err := a.Queue.Enqueue(ctx, spec)
	if err != nil {
		return "", err
	}
	if dup {
		return Duplicate, nil
	}
	return Queued, nil
}

// refuse answers a refusal, at most once per RefusalEvery for r.Throttle.
func (a *Admitter) refuse(ctx context.Context, r Request, text string) (Outcome, error) {
	if r.Refuse == nil {
		return Refused, nil
	}
	posted, err := a.Rationed(ctx, r.Throttle, func(ctx context.Context) error { return r.Refuse(ctx, text) })
	if err != nil {
		return "", fmt.Errorf("answer refused request %s: %w", r.Job.Key, err)
	}
	if !posted {
		return Throttled, nil
	}
	return Refused, nil
}

// Rationed calls post unless name was claimed within RefusalEvery, and
// reports whether it posted. name is "KIND:VENUE:PLACE:USER"; the metrics
// count its venue and kind. An empty name is never rationed. The claim
// is recorded before posting and dropped when posting fails, so that a
// redelivery is answered.
func (a *Admitter) Rationed(ctx context.Context, name string, post func(ctx context.Context) error) (bool, error) {
	if name == "" || a.Claims == nil {
		return true, post(ctx)
	}
	every := a.RefusalEvery
	if every <= 0 {
		every = time.Hour
	}
	now := time.Now()
	ok, err := a.Claims.ClaimEvery(ctx, "reply:"+name, now, every)
	if err != nil {
		return false, err
	}
	if !ok {
		a.log().Info("reply not posted: the same reply went to this user here recently", "reply", name, "every", every)
		kind, rest, _ := strings.Cut(name, ":")
		venue, _, _ := strings.Cut(rest, ":")
		a.Count("perfbot_replies_throttled_total", "venue", venue, "kind", kind)
		return false, nil
	}
	if err := post(ctx); err != nil {
		if uerr := a.Claims.Unclaim(context.WithoutCancel(ctx), "reply:"+name, now); uerr != nil {
			a.log().Warn("forget the reply that was not posted", "err", uerr)
		}
		return false, err
	}
	return true, nil
}

// PostRefusal returns a Refuse that posts RefusalMessage(key, subject,
// text) to to through Poster, after edit (which may be nil) adjusts it.
func (a *Admitter) PostRefusal(to target.Target, key, subject string, edit func(*answer.Answer)) func(ctx context.Context, text string) error {
	if a.Poster == nil {
		return nil
	}
	return func(ctx context.Context, text string) error {
		msg := RefusalMessage(key, subject, text)
		if edit != nil {
			edit(&msg)
		}
		_, err := a.Poster.Post(ctx, to, msg)
		return err
	}
}
