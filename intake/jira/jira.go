// Package jira queues benchmark jobs for patches attached to JIRA issues:
// it polls a JQL filter (by default the issues in "Patch Available") and
// queues each issue's newest .patch or .diff attachment that has not been
// tested yet, remembering tested issue and attachment pairs as Apache
// Yetus does. It also reads the comments of the issues it polls for
// "/perfbot false-alarm BENCH... [-- REASON]", which marks verdicts of
// the latest run answered on the issue, once per comment.
package jira

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/perfbot/perfbot/intake"
	"github.com/perfbot/perfbot/job/jobspec"
	"github.com/perfbot/perfbot/target"
	"github.com/perfbot/perfbot/trigger"
	"github.com/perfbot/perfbot/venue"
	rjira "github.com/perfbot/perfbot/venue/jira"
)

// DefaultJQL selects the issues whose patch awaits review.
const DefaultJQL = `status = "Patch Available"`

// Searcher runs a JQL search; *venue/jira.Client is one.
type Searcher interface {
	Search(ctx context.Context, jql string, max int) ([]rjira.Issue, error)
}

// Enqueuer queues jobs; *service.Service is one.
type Enqueuer = intake.Enqueuer

// Tested remembers tested pairs; *store.Store is one.
type Tested = intake.Tested

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
	// (see config.Triggers.Policy). Nil means trigger.Default(), which runs
	// none.
	Policy *trigger.Policy
	// Poster answers a refused patch on its issue with the policy's
	// polite text. When nil, a refusal is only logged.
	Poster intake.Poster
	// Metrics, when set, counts requests and trigger decisions.
	Metrics intake.Metrics
	// FalseAlarms records "/perfbot false-alarm" marks from comments, by
	// users the Policy lets have patches run; nil answers that the
	// command is not available.
	FalseAlarms intake.Marker
	// Marks keeps the time from which comments are obeyed (the first
	// poll's, less an hour); nil obeys every comment not taken in yet.
	Marks Marks
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// policy is the trigger policy in force.
func (p *Poller) policy() trigger.Policy {
	if p.Policy != nil {
		return *p.Policy
	}
	return trigger.Default()
}

// log is the poller's logger.
func (p *Poller) log() *slog.Logger {
	if p.Log != nil {
		return p.Log
	}
	return slog.Default()
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

// Poll queues the new patches and acts on the new commands among the
// issues' comments. It returns how many jobs it queued.
func (p *Poller) Poll(ctx context.Context) (int, error) {
	now := time.Now
	if p.Now != nil {
		now = p.Now
	}
	started := now()
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
	since, err := p.since(ctx, started)
	if err != nil {
		return 0, fmt.Errorf("jira poll: read the comments' mark: %w", err)
	}
	log := p.log()
	policy := p.policy()
	claims, _ := p.Tested.(intake.Claims)
	adm := &intake.Admitter{Queue: p.Queue, Tested: p.Tested, Claims: claims, Poster: p.Poster, Metrics: p.Metrics, Log: log}
	queued := 0
	var errs []error
	for _, is := range issues {
		if err := p.comments(ctx, adm, is, since); err != nil {
			errs = append(errs, err)
		}
		a, ok := Newest(is)
		if !ok {
			continue
		}
		key := JobKey(is.Key, a.ID)
		title := fmt.Sprintf("%s: %s (%s)", is.Key, is.Summary, a.Filename)
		req := intake.Request{
			Job: jobspec.Spec{
				Key:       key,
				Targets:   []target.Target{target.Issue(is.Key)},
				PatchURL:  a.Content,
				Title:     title,
				Requester: a.Author,
				Source:    "jira",
			},
			Once: &intake.Once{Venue: "jira", Item: is.Key, Revision: a.ID},
			Decide: func(context.Context) (trigger.Decision, error) {
				return policy.Tracker(trigger.JIRA, a.Author), nil
			},
			Refuse: adm.PostRefusal(target.Issue(is.Key), key+"/refused", title, nil),
		}
		if p.Fetch != nil {
			req.Prepare = func(ctx context.Context, spec *jobspec.Spec) error {
				var err error
				if spec.Patch, err = p.Fetch(ctx, spec.PatchURL); err != nil {
					return fmt.Errorf("fetch %s: %w", spec.PatchURL, err)
				}
				if why := venue.NotPatch(spec.Patch); why != "" {
					// Never applied: a login page is not a patch that
					// "does not apply". The pair stays taken in; a new
					// attachment is tried anew.
					log.Warn("jira attachment is not a patch: not run", "issue", is.Key, "attachment", a.ID, "file", a.Filename, "reason", why)
					if err := p.notPatch(ctx, is, a, why); err != nil {
						return err
					}
					return fmt.Errorf("%s is not a patch (%s): %w", a.Filename, why, intake.ErrAnswered)
				}
				return nil
			}
		}
		out, err := adm.Admit(ctx, req)
		if err != nil {
			errs = append(errs, fmt.Errorf("jira %s attachment %s: %w", is.Key, a.ID, err))
			continue
		}
		if out == intake.Queued {
			queued++
		}
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
	msg := intake.RefusalMessage(JobKey(is.Key, a.ID)+"/not-a-patch", fmt.Sprintf("%s: %s (%s)", is.Key, is.Summary, a.Filename), text)
	msg.Summary = "not run: the attachment is not a patch"
	if _, err := p.Poster.Post(ctx, target.Issue(is.Key), msg); err != nil {
		return fmt.Errorf("answer attachment %s of %s that is not a patch: %w", a.ID, is.Key, err)
	}
	return nil
}
