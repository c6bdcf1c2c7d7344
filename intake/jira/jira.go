// Package jira queues benchmark jobs for patches attached to JIRA issues:
// it polls a JQL filter (by default the issues in "Patch Available") and
// queues each issue's newest .patch or .diff attachment that has not been
// tested yet, remembering tested issue and attachment pairs as Apache
// Yetus does.
package jira

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/perfbot/perfbot/bot"
	"github.com/perfbot/perfbot/job"
	"github.com/perfbot/perfbot/review"
	rjira "github.com/perfbot/perfbot/review/jira"
	"github.com/perfbot/perfbot/trigger"
)

// DefaultJQL selects the issues whose patch awaits review.
const DefaultJQL = `status = "Patch Available"`

// Searcher runs a JQL search; *review/jira.Client is one.
type Searcher interface {
	Search(ctx context.Context, jql string, max int) ([]rjira.Issue, error)
}

// Enqueuer queues jobs; *bot.Service is one.
type Enqueuer interface {
	Enqueue(ctx context.Context, job job.Spec) (id int64, duplicate bool, err error)
}

// Tested remembers tested pairs; *store.Store is one.
type Tested interface {
	MarkTested(ctx context.Context, venue, item, revision, jobKey string) (bool, error)
	UnmarkTested(ctx context.Context, venue, item, revision string) error
}

// Poller polls one JIRA site.
type Poller struct {
	Search Searcher
	Queue  Enqueuer
	Tested Tested
	// JQL selects the issues (default DefaultJQL).
	JQL string
	// Max bounds the issues read per poll (default 200).
	Max int
	Log *slog.Logger
	// Fetch, when set, downloads the patch at intake, with the venue's
	// credentials, so that the job carries it and benchmark hosts need
	// no secrets; otherwise the job holds only its URL.
	Fetch func(ctx context.Context, url string) (string, error)
	// Policy decides whose patches are run, by the attachment's author
	// (see bot.Triggers.Policy). Nil means trigger.Default(), which runs
	// none.
	Policy *trigger.Policy
	// Poster answers a refused patch on its issue with the policy's
	// polite text. When nil, a refusal is only logged.
	Poster bot.Poster
}

// IsPatch reports whether an attachment's name marks it as a patch.
func IsPatch(name string) bool {
	n := strings.ToLower(name)
	return strings.HasSuffix(n, ".patch") || strings.HasSuffix(n, ".diff") || strings.HasSuffix(n, ".patch.txt")
}

// Newest returns an issue's newest patch attachment (latest creation, the
// highest id on a tie), or false when it has none.
func Newest(is rjira.Issue) (rjira.Attachment, bool) {
	var best rjira.Attachment
	found := false
	for _, a := range is.Attachments {
		if !IsPatch(a.Filename) {
			continue
		}
		if !found || a.Created.After(best.Created) || a.Created.Equal(best.Created) && idLess(best.ID, a.ID) {
			best, found = a, true
		}
	}
	return best, found
}

// idLess compares numeric ids as numbers.
func idLess(a, b string) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
}

// JobKey is the job of one attachment of one issue.
func JobKey(issue, attachment string) string {
	return fmt.Sprintf("jira:%s/attachment/%s", issue, attachment)
}

// Poll queues the new patches. It returns how many jobs it queued.
func (p *Poller) Poll(ctx context.Context) (int, error) {
	jql := p.JQL
	if jql == "" {
		jql = DefaultJQL
	}
	max := p.Max
	if max <= 0 {
		max = 200
	}
	issues, err := p.Search.Search(ctx, jql, max)
	if err != nil {
		return 0, fmt.Errorf("jira poll: %w", err)
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
	for _, is := range issues {
		a, ok := Newest(is)
		if !ok {
			continue
		}
		key := JobKey(is.Key, a.ID)
		fresh, err := p.Tested.MarkTested(ctx, "jira", is.Key, a.ID, key)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if !fresh {
			continue
		}
		d := policy.Tracker(trigger.JIRA, a.Author)
		if !d.Allowed {
			log.Info("jira patch refused", "issue", is.Key, "attachment", a.ID, "author", a.Author, "reason", d.Reason)
			if err := p.refuse(ctx, is, a, d); err != nil {
				// Forget the pair so that the next poll answers again.
				if uerr := p.Tested.UnmarkTested(ctx, "jira", is.Key, a.ID); uerr != nil {
					errs = append(errs, uerr)
				}
				errs = append(errs, err)
			}
			continue
		}
		log.Info("jira patch allowed", "issue", is.Key, "attachment", a.ID, "reason", d.Reason)
		job := job.Spec{
			Key:      key,
			Targets:  []string{"jira:" + is.Key},
			PatchURL: a.Content,
			Title:    fmt.Sprintf("%s: %s (%s)", is.Key, is.Summary, a.Filename),
			Source:   "jira",
		}
		if p.Fetch != nil {
			if job.Patch, err = p.Fetch(ctx, job.PatchURL); err != nil {
				if uerr := p.Tested.UnmarkTested(ctx, "jira", is.Key, a.ID); uerr != nil {
					errs = append(errs, uerr)
				}
				errs = append(errs, fmt.Errorf("fetch %s: %w", job.PatchURL, err))
				continue
			}
			if why := review.NotPatch(job.Patch); why != "" {
				// Never applied: a login page is not a patch that "does
				// not apply". The pair stays tested; a new attachment is
				// tried anew.
				log.Warn("jira attachment is not a patch: not run", "issue", is.Key, "attachment", a.ID, "file", a.Filename, "reason", why)
				if err := p.notPatch(ctx, is, a, why); err != nil {
					errs = append(errs, err)
				}
				continue
			}
		}
		if _, _, err := p.Queue.Enqueue(ctx, job); err != nil {
			// Forget the pair so that the next poll tries again.
			if uerr := p.Tested.UnmarkTested(ctx, "jira", is.Key, a.ID); uerr != nil {
				errs = append(errs, uerr)
			}
			errs = append(errs, err)
			continue
		}
		queued++
		log.Info("jira patch queued", "issue", is.Key, "attachment", a.ID, "file", a.Filename)
	}
	return queued, errors.Join(errs...)
}

// notPatch answers an attachment that is not a patch on its issue, through
// Poster.
func (p *Poller) notPatch(ctx context.Context, is rjira.Issue, a rjira.Attachment, why string) error {
	if p.Poster == nil {
		return nil
	}
	text := fmt.Sprintf("perfbot did not run %s: the download is not a patch (%s). Attach the output of git diff or git format-patch; if the attachment is one, perfbot's JIRA credentials may lack access to it.", a.Filename, why)
	msg := bot.RefusalMessage(JobKey(is.Key, a.ID)+"/not-a-patch", fmt.Sprintf("%s: %s (%s)", is.Key, is.Summary, a.Filename), text)
	msg.Summary = "not run: the attachment is not a patch"
	if _, err := p.Poster.Post(ctx, review.Target{Venue: "jira", Where: is.Key}, msg); err != nil {
		return fmt.Errorf("answer attachment %s of %s that is not a patch: %w", a.ID, is.Key, err)
	}
	return nil
}

// refuse answers a refused patch on its issue, through Poster.
func (p *Poller) refuse(ctx context.Context, is rjira.Issue, a rjira.Attachment, d trigger.Decision) error {
	if p.Poster == nil {
		return nil
	}
	msg := bot.RefusalMessage(JobKey(is.Key, a.ID)+"/refused", fmt.Sprintf("%s: %s (%s)", is.Key, is.Summary, a.Filename), d.Refusal)
	if _, err := p.Poster.Post(ctx, review.Target{Venue: "jira", Where: is.Key}, msg); err != nil {
		return fmt.Errorf("answer refused patch %s of %s: %w", a.ID, is.Key, err)
	}
	return nil
}
