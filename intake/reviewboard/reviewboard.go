// Package reviewboard queues benchmark jobs for new diff revisions of the
// review requests of one Review Board repository.
package reviewboard

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"

	"github.com/perfbot/perfbot/bot"
	"github.com/perfbot/perfbot/review"
	rrb "github.com/perfbot/perfbot/review/reviewboard"
	"github.com/perfbot/perfbot/trigger"
)

// Lister lists review requests; *review/reviewboard.Client is one.
type Lister interface {
	ListRequests(ctx context.Context, repository, status string) ([]rrb.Request, error)
}

// Enqueuer queues jobs; *bot.Service is one.
type Enqueuer interface {
	Enqueue(ctx context.Context, job bot.JobSpec) (id int64, duplicate bool, err error)
}

// Tested remembers tested pairs; *store.Store is one.
type Tested interface {
	MarkTested(ctx context.Context, venue, item, revision, jobKey string) (bool, error)
	UnmarkTested(ctx context.Context, venue, item, revision string) error
}

// Poller polls the pending review requests of one repository.
type Poller struct {
	List   Lister
	Queue  Enqueuer
	Tested Tested
	// URL is the site's address, for the diff download link.
	URL string
	// Repository is the repository id the requests are filtered by.
	Repository string
	Log        *slog.Logger
	// Fetch, when set, downloads the patch at intake, with the venue's
	// credentials, so that the job carries it and benchmark hosts need
	// no secrets; otherwise the job holds only its URL.
	Fetch func(ctx context.Context, url string) (string, error)
	// Policy decides whose diffs are run, by the review request's
	// submitter, the only user who can upload its diffs (see
	// bot.Triggers.Policy). Nil means trigger.Default(), which runs none.
	Policy *trigger.Policy
	// Poster answers a refused diff on its review request with the
	// policy's polite text. When nil, a refusal is only logged.
	Poster bot.Poster
}

// JobKey is the job of one diff revision of one review request.
func JobKey(id, revision int) string {
	return fmt.Sprintf("reviewboard:%d/diff/%d", id, revision)
}

// Poll queues each diff revision not yet tested and returns how many jobs
// it queued. The job fetches the patch from the "Download Diff" link
// (/r/ID/diff/REVISION/raw/).
func (p *Poller) Poll(ctx context.Context) (int, error) {
	reqs, err := p.List.ListRequests(ctx, p.Repository, "pending")
	if err != nil {
		return 0, fmt.Errorf("review board poll: %w", err)
	}
	log := p.Log
	if log == nil {
		log = slog.Default()
	}
	policy := trigger.Default()
	if p.Policy != nil {
		policy = *p.Policy
	}
	queued := 0
	var errs []error
	for _, r := range reqs {
		if r.DiffRevision <= 0 {
			continue
		}
		id, rev := strconv.Itoa(r.ID), strconv.Itoa(r.DiffRevision)
		key := JobKey(r.ID, r.DiffRevision)
		fresh, err := p.Tested.MarkTested(ctx, "reviewboard", id, rev, key)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if !fresh {
			continue
		}
		d := policy.Tracker(trigger.ReviewBoard, r.Submitter)
		if !d.Allowed {
			log.Info("review board diff refused", "request", r.ID, "revision", r.DiffRevision, "submitter", r.Submitter, "reason", d.Reason)
			if err := p.refuse(ctx, r, d); err != nil {
				// Forget the pair so that the next poll answers again.
				if uerr := p.Tested.UnmarkTested(ctx, "reviewboard", id, rev); uerr != nil {
					errs = append(errs, uerr)
				}
				errs = append(errs, err)
			}
			continue
		}
		log.Info("review board diff allowed", "request", r.ID, "revision", r.DiffRevision, "reason", d.Reason)
		job := bot.JobSpec{
			Key:       key,
			Targets:   []string{"reviewboard:" + id},
			PatchURL:  fmt.Sprintf("%s/r/%d/diff/%d/raw/", strings.TrimSuffix(p.URL, "/"), r.ID, r.DiffRevision),
			Title:     fmt.Sprintf("r/%d diff %d: %s", r.ID, r.DiffRevision, r.Summary),
			Requester: r.Submitter,
			Source:    "reviewboard",
		}
		if p.Fetch != nil {
			if job.Patch, err = p.Fetch(ctx, job.PatchURL); err != nil {
				if uerr := p.Tested.UnmarkTested(ctx, "reviewboard", id, rev); uerr != nil {
					errs = append(errs, uerr)
				}
				errs = append(errs, fmt.Errorf("fetch %s: %w", job.PatchURL, err))
				continue
			}
		}
		if _, _, err := p.Queue.Enqueue(ctx, job); err != nil {
			if uerr := p.Tested.UnmarkTested(ctx, "reviewboard", id, rev); uerr != nil {
				errs = append(errs, uerr)
			}
			errs = append(errs, err)
			continue
		}
		queued++
		log.Info("review board diff queued", "request", r.ID, "revision", r.DiffRevision)
	}
	return queued, errors.Join(errs...)
}

// refuse answers a refused diff on its review request, through Poster.
func (p *Poller) refuse(ctx context.Context, r rrb.Request, d trigger.Decision) error {
	if p.Poster == nil {
		return nil
	}
	msg := bot.RefusalMessage(JobKey(r.ID, r.DiffRevision)+"/refused", fmt.Sprintf("r/%d diff %d: %s", r.ID, r.DiffRevision, r.Summary), d.Refusal)
	if _, err := p.Poster.Post(ctx, review.Target{Venue: "reviewboard", Where: strconv.Itoa(r.ID)}, msg); err != nil {
		return fmt.Errorf("answer refused diff %d of review request %d: %w", r.DiffRevision, r.ID, err)
	}
	return nil
}
