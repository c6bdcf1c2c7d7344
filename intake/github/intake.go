package github

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/perfbot/perfbot/bot"
	"github.com/perfbot/perfbot/job"
	"github.com/perfbot/perfbot/trigger"
)

// Enqueuer queues benchmark jobs; *bot.Service is one.
type Enqueuer interface {
	Enqueue(ctx context.Context, job job.Spec) (id int64, duplicate bool, err error)
}

// Seen remembers deliveries, handled comments and refusals; *store.Store
// is one.
type Seen interface {
	DeliveryHandled(ctx context.Context, id string) (bool, error)
	SeeDelivery(ctx context.Context, id string) (bool, error)
	ClaimEvery(ctx context.Context, name string, now time.Time, every time.Duration) (bool, error)
	Unclaim(ctx context.Context, name string, at time.Time) error
	UnmarkTested(ctx context.Context, venue, item, revision string) error
	MarkTested(ctx context.Context, venue, item, revision, jobKey string) (bool, error)
	ScheduleLast(ctx context.Context, name string) (time.Time, error)
	SetScheduleLast(ctx context.Context, name string, t time.Time) error
}

// Intake handles "/perfbot run" comments of one GitHub installation.
type Intake struct {
	Client *Client
	Queue  Enqueuer
	Seen   Seen
	// Secret is the webhook secret; deliveries whose signature does not
	// match it are refused.
	Secret []byte
	// Repo, when set, is the only repository ("owner/name") accepted.
	Repo string
	// Policy decides who may start runs (see bot.Triggers.Policy). When
	// nil, the policy of Allow is used.
	Policy *trigger.Policy
	// Allow lists users who may start runs; "committers" admits anyone
	// with write, maintain or admin permission. It is read only when
	// Policy is nil.
	Allow []string
	// OnPush, if set, receives pushes ("owner/name", ref, old and new
	// head) and reports whether the branch is tracked.
	OnPush func(ctx context.Context, repo, ref, before, after string) (bool, error)
	// Command is the command word (default "/perfbot").
	Command string
	Log     *slog.Logger
	// Metrics, if set, counts deliveries and outcomes.
	Metrics *bot.Metrics

	// ReadSlots caps the webhook bodies read (and so not yet
	// authenticated) at once (default 4); ReadWait is how long a delivery
	// waits for a slot before it is answered 503 (default 5s); ReadTimeout
	// bounds the reading of one body (default 1m).
	ReadSlots   int
	ReadWait    time.Duration
	ReadTimeout time.Duration
	// RefusalEvery is the least time between two refusals posted to one
	// user on one pull request (default an hour); the refusals between
	// are logged and counted, not posted.
	RefusalEvery time.Duration

	once     sync.Once
	reads    chan struct{}
	mu       sync.Mutex
	inFlight map[string]bool // delivery ids being handled
}

// Outcome is what became of a comment.
type Outcome string

// Outcomes of HandleComment.
const (
	Ignored   Outcome = "ignored"   // no command, not a pull request, a bot
	Queued    Outcome = "queued"    // a new job was queued
	Duplicate Outcome = "duplicate" // the job already existed
	Refused   Outcome = "refused"   // the commenter may not start runs
	Invalid   Outcome = "invalid"   // a malformed command, answered with usage
	// Throttled is a refusal not posted, because the same user was
	// refused on the same pull request within RefusalEvery.
	Throttled Outcome = "throttled"
)

func (in *Intake) log() *slog.Logger {
	if in.Log == nil {
		return slog.Default()
	}
	return in.Log
}

func (in *Intake) count(name string, labels ...string) {
	if in.Metrics != nil {
		in.Metrics.Inc(name, labels...)
	}
}

// JobKey is the key of the job a comment asks for: one job per comment.
func JobKey(repo string, number int, commentID int64) string {
	return fmt.Sprintf("github:%s#%d/comment/%d", repo, number, commentID)
}

// HandleComment acts on one new comment of issue in repo.
func (in *Intake) HandleComment(ctx context.Context, repo string, issue Issue, c Comment) (Outcome, error) {
	word := in.Command
	if word == "" {
		word = "/perfbot"
	}
	if c.User.Type == "Bot" {
		return Ignored, nil
	}
	if in.Repo != "" && !strings.EqualFold(repo, in.Repo) {
		return Ignored, nil
	}
	cmd, ok, perr := ParseCommand(c.Body, word)
	if !ok {
		return Ignored, nil
	}
	log := in.log().With("repo", repo, "number", issue.Number, "comment", c.ID, "user", c.User.Login)
	if issue.PullRequest == nil {
		log.Info("command on an issue, not a pull request")
		_, err := in.replyEvery(ctx, log, "not-a-pull-request", repo, issue.Number, c.User.Login, fmt.Sprintf(
			"@%s perfbot benchmarks pull requests; this is an issue, so there is nothing to run.", c.User.Login))
		return Ignored, err
	}
	d, err := in.decide(ctx, repo, c.User.Login)
	if err != nil {
		return "", err
	}
	if !d.Allowed {
		log.Info("run refused", "reason", d.Reason)
		in.count("perfbot_trigger_decisions_total", "venue", trigger.GitHub, "decision", "refused")
		return in.refuse(ctx, log, repo, issue.Number, c.User.Login, d.Refusal)
	}
	log.Info("run allowed", "reason", d.Reason)
	in.count("perfbot_trigger_decisions_total", "venue", trigger.GitHub, "decision", "allowed")
	if perr != nil {
		return Invalid, in.Client.Reply(ctx, repo, issue.Number, fmt.Sprintf("@%s %s", c.User.Login, perr))
	}
	job := job.Spec{
		Key:          JobKey(repo, issue.Number, c.ID),
		Targets:      []string{fmt.Sprintf("github:%s#%d", repo, issue.Number)},
		Suites:       cmd.Suites,
		BaseRef:      cmd.Base,
		CandidateRef: fmt.Sprintf("pull/%d/head", issue.Number),
		Title:        fmt.Sprintf("%s#%d: %s", repo, issue.Number, issue.Title),
		Requester:    c.User.Login,
		Source:       "github",
	}
	_, dup, err := in.Queue.Enqueue(ctx, job)
	if err != nil {
		return "", err
	}
	if dup {
		return Duplicate, nil
	}
	if err := in.Client.React(ctx, repo, c.ID, "rocket"); err != nil {
		log.Warn("acknowledge with a reaction", "err", err)
	}
	return Queued, nil
}

// refuse answers a refused request, at most once per RefusalEvery for one
// user on one pull request.
func (in *Intake) refuse(ctx context.Context, log *slog.Logger, repo string, number int, user, text string) (Outcome, error) {
	posted, err := in.replyEvery(ctx, log, "refusal", repo, number, user, text)
	if err != nil {
		return "", err
	}
	if !posted {
		return Throttled, nil
	}
	return Refused, nil
}

// replyEvery posts text on a pull request or issue unless a reply of the
// same kind went to the same user there within RefusalEvery (default an
// hour), and reports whether it posted. The reply is recorded in the store
// before it is posted and forgotten again when posting fails, so that a
// redelivery of the request is answered.
func (in *Intake) replyEvery(ctx context.Context, log *slog.Logger, kind, repo string, number int, user, text string) (bool, error) {
	every := or(in.RefusalEvery, time.Hour)
	name := fmt.Sprintf("reply:%s:github:%s#%d:%s", kind, strings.ToLower(repo), number, strings.ToLower(user))
	now := time.Now()
	ok, err := in.Seen.ClaimEvery(ctx, name, now, every)
	if err != nil {
		return false, err
	}
	if !ok {
		log.Info("reply not posted: the same reply went to this user here recently", "kind", kind, "every", every)
		in.count("perfbot_replies_throttled_total", "venue", "github", "kind", kind)
		return false, nil
	}
	if err := in.Client.Reply(ctx, repo, number, text); err != nil {
		if uerr := in.Seen.Unclaim(context.WithoutCancel(ctx), name, now); uerr != nil {
			log.Warn("forget the reply that was not posted", "err", uerr)
		}
		return false, err
	}
	return true, nil
}

// policy is the trigger policy in force.
func (in *Intake) policy() trigger.Policy {
	if in.Policy != nil {
		return *in.Policy
	}
	allow := in.Allow
	if len(allow) == 0 {
		allow = []string{bot.Committers}
	}
	return bot.Triggers{Allow: allow}.Policy()
}

// decide asks the policy whether user may start runs on repo, looking the
// user's permission up only when the policy needs it.
func (in *Intake) decide(ctx context.Context, repo, user string) (trigger.Decision, error) {
	p := in.policy()
	perm := ""
	if p.NeedsPermission(user) {
		var err error
		if perm, err = in.Client.Permission(ctx, repo, user); err != nil {
			return trigger.Decision{}, fmt.Errorf("permission of %s on %s: %w", user, repo, err)
		}
	}
	return p.GitHub(user, perm), nil
}

// Poll handles the comments made since the last poll, for installations
// without a public webhook endpoint. Each comment is handled once.
func (in *Intake) Poll(ctx context.Context) error {
	if in.Repo == "" {
		return errors.New("github polling needs venues.github.repo")
	}
	cursor := "github-poll:" + in.Repo
	since, err := in.Seen.ScheduleLast(ctx, cursor)
	if err != nil {
		return err
	}
	if since.IsZero() {
		since = time.Now().Add(-time.Hour)
	}
	comments, err := in.Client.CommentsSince(ctx, in.Repo, since)
	if err != nil {
		return err
	}
	word := in.Command
	if word == "" {
		word = "/perfbot"
	}
	latest := since
	// retry is the creation time of the first comment whose handling
	// failed: the cursor stays before it, so the next poll lists it again.
	var retry time.Time
	var errs []error
	for _, c := range comments {
		if c.Created.After(latest) {
			latest = c.Created
		}
		if _, ok, _ := ParseCommand(c.Body, word); !ok {
			continue
		}
		number, err := issueNumber(c.IssueURL)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		fresh, err := in.Seen.MarkTested(ctx, "github-comment", in.Repo, strconv.FormatInt(c.ID, 10), JobKey(in.Repo, number, c.ID))
		if err != nil || !fresh {
			if err != nil {
				errs = append(errs, err)
			}
			continue
		}
		issue, err := in.Client.Issue(ctx, in.Repo, number)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out, err := in.HandleComment(ctx, in.Repo, *issue, c)
		if err != nil {
			errs = append(errs, err)
			if uerr := in.Seen.UnmarkTested(ctx, "github-comment", in.Repo, strconv.FormatInt(c.ID, 10)); uerr != nil {
				errs = append(errs, uerr)
			} else if retry.IsZero() || c.Created.Before(retry) {
				retry = c.Created
			}
		}
		in.count("perfbot_requests_total", "source", "github-poll", "result", string(out))
	}
	// Comments are listed by update time; step back a little so that a
	// comment created in the same second as the cursor is not missed
	// (MarkTested keeps it from being handled twice).
	if !retry.IsZero() && retry.Before(latest) {
		latest = retry
	}
	if err := in.Seen.SetScheduleLast(ctx, cursor, latest.Add(-time.Second)); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// issueNumber reads the number at the end of an issue_url.
func issueNumber(issueURL string) (int, error) {
	i := strings.LastIndex(issueURL, "/")
	n, err := strconv.Atoi(issueURL[i+1:])
	if err != nil || i < 0 {
		return 0, fmt.Errorf("comment's issue_url %q does not end in an issue number", issueURL)
	}
	return n, nil
}
