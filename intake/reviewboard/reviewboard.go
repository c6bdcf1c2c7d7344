// Package reviewboard queues benchmark jobs for new diff revisions of the
// review requests of one Review Board repository, and reads the reviews
// and replies on them for "/perfbot false-alarm" commands.
package reviewboard

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/perfbot/perfbot/intake"
	"github.com/perfbot/perfbot/job/jobspec"
	"github.com/perfbot/perfbot/target"
	"github.com/perfbot/perfbot/trigger"
	rrb "github.com/perfbot/perfbot/venue/reviewboard"
)

// Lister lists review requests updated since a time (all when zero);
// *venue/reviewboard.Client is one.
type Lister interface {
	ListRequests(ctx context.Context, repository, status string, since time.Time) ([]rrb.Request, error)
}

// Differ downloads one diff revision as a patch, refusing what is not
// one with a *venue/reviewboard.NotPatchError; *venue/reviewboard.Client
// is one.
type Differ interface {
	Diff(ctx context.Context, id, revision int) (string, error)
	DiffURL(id, revision int) string
}

// Enqueuer queues jobs; *service.Service is one.
type Enqueuer = intake.Enqueuer

// Tested remembers tested pairs; *store.Store is one.
type Tested = intake.Tested

// Poller polls the pending review requests of one repository.
type Poller struct {
	List   Lister
	Queue  Enqueuer
	Tested Tested
	// Diffs downloads each diff at intake through the API's diff
	// resource, with the venue's credentials, so that the job carries the
	// patch and benchmark hosts need no secrets.
	Diffs Differ
	// Repository is the repository id the requests are filtered by.
	Repository string
	Log        *slog.Logger
	// Policy decides whose diffs are run, by the review request's
	// submitter, the only user who can upload its diffs (see
	// config.Triggers.Policy). Nil means trigger.Default(), which runs none.
	Policy *trigger.Policy
	// Poster answers a refused diff on its review request with the
	// policy's polite text. When nil, a refusal is only logged.
	Poster intake.Poster
	// Metrics, when set, counts requests and trigger decisions.
	Metrics intake.Metrics
	// Reviews, when set, reads the reviews and replies of each listed
	// review request for "/perfbot false-alarm" commands (see commands.go).
	Reviews Reviewer
	// FalseAlarms records the marks; nil answers that the command is not
	// available.
	FalseAlarms intake.Marker
	// Marks keeps, across restarts, the time from which commands are
	// obeyed; nil obeys every command not taken in before.
	Marks Marks
	// Now is the clock (default time.Now).
	Now func() time.Time

	mu sync.Mutex
	// since is the latest last_updated seen: the next poll lists only
	// the requests updated at or after it.
	since time.Time
}

// JobKey is the job of one diff revision of one review request.
func JobKey(id, revision int) string {
	return fmt.Sprintf("reviewboard:%d/diff/%d", id, revision)
}

// Poll queues each diff revision not yet tested and returns how many jobs
// it queued. The first poll lists every pending request; later ones only
// those updated since the latest update the poll before saw (the site's
// own times, so the clocks need not agree). A request whose diff could
// not be fetched or queued holds that mark back, to be listed again.
func (p *Poller) Poll(ctx context.Context) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	reqs, err := p.List.ListRequests(ctx, p.Repository, "pending", p.since)
	if err != nil {
		return 0, fmt.Errorf("review board poll: %w", err)
	}
	next, hold := p.since, time.Time{}
	for _, r := range reqs {
		if r.LastUpdated.After(next) {
			next = r.LastUpdated
		}
	}
	retryLater := func(r rrb.Request) {
		if !r.LastUpdated.IsZero() && (hold.IsZero() || r.LastUpdated.Before(hold)) {
			hold = r.LastUpdated
		}
	}
	defer func() {
		if !hold.IsZero() && hold.Before(next) {
			next = hold
		}
		p.since = next
	}()
	log := p.Log
	if log == nil {
		log = slog.Default()
	}
	policy := trigger.Default()
	if p.Policy != nil {
		policy = *p.Policy
	}
	adm := &intake.Admitter{Queue: p.Queue, Tested: p.Tested, Claims: claimsOf(p.Tested), Poster: p.Poster, Metrics: p.Metrics, Log: log}
	commandsFrom, err := p.commandsFrom(ctx)
	if err != nil {
		return 0, err
	}
	queued := 0
	var errs []error
	for _, r := range reqs {
		if p.Reviews != nil {
			if err := p.commands(ctx, adm, r, commandsFrom); err != nil {
				retryLater(r)
				errs = append(errs, fmt.Errorf("reviews of review request %d: %w", r.ID, err))
			}
		}
		if r.DiffRevision <= 0 {
			continue
		}
		id, rev := strconv.Itoa(r.ID), strconv.Itoa(r.DiffRevision)
		key := JobKey(r.ID, r.DiffRevision)
		title := fmt.Sprintf("r/%d diff %d: %s", r.ID, r.DiffRevision, r.Summary)
		out, err := adm.Admit(ctx, intake.Request{
			Job: jobspec.Spec{
				Key:       key,
				Targets:   []target.Target{Target(r.ID)},
				PatchURL:  p.Diffs.DiffURL(r.ID, r.DiffRevision),
				Title:     title,
				Requester: r.Submitter,
				Source:    "reviewboard",
			},
			Once: &intake.Once{Venue: "reviewboard", Item: id, Revision: rev},
			Decide: func(context.Context) (trigger.Decision, error) {
				return policy.Tracker(trigger.ReviewBoard, r.Submitter), nil
			},
			Refuse: adm.PostRefusal(Target(r.ID), key+"/refused", title, nil),
			Prepare: func(ctx context.Context, spec *jobspec.Spec) error {
				patch, err := p.Diffs.Diff(ctx, r.ID, r.DiffRevision)
				if np, ok := errors.AsType[*rrb.NotPatchError](err); ok {
					// Never applied, never answered: the site or perfbot's
					// token is at fault, not the author. Listed again when
					// the request changes or perfbot restarts.
					return fmt.Errorf("%w: diff %d of review request %d is not a patch (%s); no review posted", intake.ErrSkip, r.DiffRevision, r.ID, np.Reason)
				}
				if err != nil {
					return fmt.Errorf("fetch diff %d of review request %d: %w", r.DiffRevision, r.ID, err)
				}
				spec.Patch = patch
				return nil
			},
		})
		if err != nil {
			retryLater(r)
			errs = append(errs, err)
			continue
		}
		if out == intake.Queued {
			queued++
		}
	}
	return queued, errors.Join(errs...)
}
