// Package github turns "/perfbot ..." comments on GitHub pull requests and
// check run "Re-run" clicks into requests for intake.Admitter: from the
// webhook (signature-checked with go-github, deliveries de-duplicated) or
// by polling recent comments, with the commenter's permission checked
// before anything is queued, cancelled or described.
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

	"github.com/perfbot/perfbot/intake"
	"github.com/perfbot/perfbot/intake/command"
	"github.com/perfbot/perfbot/job/jobspec"
	"github.com/perfbot/perfbot/report"
	"github.com/perfbot/perfbot/target"
	"github.com/perfbot/perfbot/trigger"
	ghvenue "github.com/perfbot/perfbot/venue/github"
)

// Client is the part of GitHub the intake uses: the permission of a
// commenter, a pull request's head, recent comments, and a reaction or a
// reply. venue/github's Client, the one answers are posted through, is
// the one perfbot serve hands it.
type Client interface {
	Permission(ctx context.Context, repo, user string) (string, error)
	PullHead(ctx context.Context, repo string, number int) (string, error)
	Issue(ctx context.Context, repo string, number int) (*Issue, error)
	CommentsSince(ctx context.Context, repo string, since time.Time) ([]Comment, error)
	React(ctx context.Context, repo string, commentID int64, content string) error
	Reply(ctx context.Context, repo string, number int, body string) error
}

var _ Client = (*ghvenue.Client)(nil)

// Issue, Comment and User are an issue or pull request, a comment and an
// account, as a webhook payload or the API names them.
type (
	Issue   = ghvenue.Issue
	Comment = ghvenue.Comment
	User    = ghvenue.User
)

// Seen remembers deliveries, handled comments and rationed replies;
// *store.Store is one.
type Seen interface {
	intake.Tested
	intake.Claims
	intake.DeliveryLog
	ScheduleLast(ctx context.Context, name string) (time.Time, error)
	SetScheduleLast(ctx context.Context, name string, t time.Time) error
}

// Intake handles the "/perfbot" comments and check run re-runs of one
// GitHub installation.
type Intake struct {
	Client Client
	Queue  intake.Enqueuer
	Seen   Seen
	// Control cancels and describes a pull request's jobs, for
	// "/perfbot cancel" and "/perfbot status"; when nil those commands
	// are answered that they are not available.
	Control intake.Controller
	// Marks records "/perfbot false-alarm" marks; when nil that command
	// is answered that it is not available.
	Marks intake.Marker
	// Secret is the webhook secret; deliveries whose signature does not
	// match it are refused.
	Secret []byte
	// Repo, when set, is the only repository ("owner/name") accepted.
	Repo string
	// Policy decides who may start, cancel and list runs; nil means
	// trigger.Default() (write permission or more).
	Policy *trigger.Policy
	// OnPush, if set, receives pushes ("owner/name", ref, old and new
	// head) and reports whether the branch is tracked.
	OnPush func(ctx context.Context, repo, ref, before, after string) (bool, error)
	// OnMerged, if set, receives merged pull requests ("owner/name", the
	// number, merge_commit_sha); an error has GitHub deliver it again.
	OnMerged func(ctx context.Context, repo string, number int, commit string) error
	// Command is the command word (default "/perfbot").
	Command string
	// CheckName, when set, is the name of perfbot's check run: a
	// rerequested check run of another name is ignored.
	CheckName string
	Log       *slog.Logger
	// Metrics, if set, counts deliveries and outcomes.
	Metrics intake.Metrics

	// ReadSlots caps the webhook bodies read (and so not yet
	// authenticated) at once (default 4); ReadWait is how long a delivery
	// waits for a slot before it is answered 503 (default 5s); ReadTimeout
	// bounds the reading of one body (default 1m).
	ReadSlots   int
	ReadWait    time.Duration
	ReadTimeout time.Duration
	// RefusalEvery is the least time between two refusals (or help
	// texts) posted to one user on one pull request (default an hour);
	// the ones between are logged and counted, not posted.
	RefusalEvery time.Duration

	once       sync.Once
	reads      chan struct{}
	deliveries intake.Deliveries
}

// Outcome is what became of a comment or delivery.
type Outcome = intake.Outcome

// Outcomes of HandleComment and HandleRerun.
const (
	Ignored   = intake.Ignored
	Queued    = intake.Queued
	Duplicate = intake.Duplicate
	Refused   = intake.Refused
	Invalid   = intake.Invalid
	Throttled = intake.Throttled
	Answered  = intake.Answered
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

func (in *Intake) admitter() *intake.Admitter {
	return &intake.Admitter{Queue: in.Queue, Tested: in.Seen, Claims: in.Seen, Metrics: in.Metrics,
		Log: in.log(), RefusalEvery: in.RefusalEvery}
}

func (in *Intake) word() string {
	if in.Command == "" {
		return "/perfbot"
	}
	return in.Command
}

// JobKey is the key of the job a comment asks for: one job per comment.
func JobKey(repo string, number int, commentID int64) string {
	return fmt.Sprintf("github:%s#%d/comment/%d", repo, number, commentID)
}

// RerunKey is the key of the job a check run's "Re-run" asks for: one job
// per delivery.
func RerunKey(repo string, number int, delivery string) string {
	return fmt.Sprintf("github:%s#%d/rerun/%s", repo, number, delivery)
}

// Target is the answer target of a pull request.
func Target(repo string, number int) target.Target { return target.PR(repo, number) }

// throttle names a rationed reply of kind to user on a pull request.
func throttle(kind, repo string, number int, user string) string {
	return fmt.Sprintf("%s:github:%s#%d:%s", kind, strings.ToLower(repo), number, strings.ToLower(user))
}

// commentVenue is the venue under which comment ids are recorded in the
// history store (Seen.MarkTested): a comment is acted on once for as long
// as the store keeps its history, whether it came by webhook, by a
// replayed delivery under a new delivery id, or by a poll.
const commentVenue = "github-comment"

// HandleComment acts on one new comment of issue in repo, once: the
// comment's id (from the signed payload or the API, never the delivery
// id) is recorded in the history store first, and a comment recorded
// before is Seen. When acting on it fails, the record is dropped so that
// the venue's redelivery or the next poll takes it in afresh.
func (in *Intake) HandleComment(ctx context.Context, repo string, issue Issue, c Comment) (Outcome, error) {
	if c.User.Type == "Bot" {
		return Ignored, nil
	}
	if in.Repo != "" && !strings.EqualFold(repo, in.Repo) {
		return Ignored, nil
	}
	cmd, ok, perr := ParseCommand(c.Body, in.word())
	if !ok {
		return Ignored, nil
	}
	if c.ID <= 0 {
		return "", fmt.Errorf("comment on %s#%d without an id", repo, issue.Number)
	}
	item, id := strings.ToLower(repo), strconv.FormatInt(c.ID, 10)
	fresh, err := in.Seen.MarkTested(ctx, commentVenue, item, id, JobKey(repo, issue.Number, c.ID))
	if err != nil {
		return "", err
	}
	if !fresh {
		in.log().Info("comment handled before", "repo", repo, "number", issue.Number, "comment", c.ID)
		return intake.Seen, nil
	}
	out, err := in.handleComment(ctx, repo, issue, c, cmd, perr)
	if err != nil {
		if uerr := in.Seen.UnmarkTested(context.WithoutCancel(ctx), commentVenue, item, id); uerr != nil {
			err = errors.Join(err, uerr)
		}
	}
	return out, err
}

// handleComment acts on the command cmd (or the parse error perr) of a
// comment taken in for the first time.
func (in *Intake) handleComment(ctx context.Context, repo string, issue Issue, c Comment, cmd Command, perr error) (Outcome, error) {
	user := c.User.Login
	log := in.log().With("repo", repo, "number", issue.Number, "comment", c.ID, "user", user)
	adm := in.admitter()
	reply := func(text string) func(context.Context) error {
		return func(ctx context.Context) error { return in.Client.Reply(ctx, repo, issue.Number, text) }
	}
	if !issue.PullRequest {
		log.Info("command on an issue, not a pull request")
		_, err := adm.Rationed(ctx, throttle("not-a-pull-request", repo, issue.Number, user), reply(fmt.Sprintf(
			"@%s perfbot benchmarks pull requests; this is an issue, so there is nothing to run.", user)))
		return Ignored, err
	}
	if perr == nil && cmd.Verb == VerbHelp {
		posted, err := adm.Rationed(ctx, throttle("help", repo, issue.Number, user), reply(fmt.Sprintf("@%s %s", user, Usage(in.word()))))
		if err != nil || !posted {
			return Throttled, err
		}
		return Answered, nil
	}
	refuse := func(ctx context.Context, text string) error { return reply(text)(ctx) }
	if perr != nil || cmd.Verb != VerbRun {
		// Malformed commands, cancel and status: only for those who may
		// start runs.
		d, err := in.decide(ctx, repo, user)
		if err != nil {
			return "", err
		}
		if !d.Allowed {
			log.Info("command refused", "reason", d.Reason)
			posted, err := adm.Rationed(ctx, throttle("refusal", repo, issue.Number, user), func(ctx context.Context) error {
				return refuse(ctx, d.Refusal)
			})
			if err != nil || !posted {
				return Throttled, err
			}
			return Refused, nil
		}
		if perr != nil {
			return Invalid, in.Client.Reply(ctx, repo, issue.Number, fmt.Sprintf("@%s %s", user, perr))
		}
		if cmd.Verb == VerbFalseAlarm {
			return Answered, in.markFalseAlarm(ctx, repo, issue.Number, user, cmd)
		}
		return Answered, in.control(ctx, repo, issue.Number, user, cmd.Verb)
	}
	// The head is read as the request is taken in, before the policy is
	// asked, and pinned: a push after this moment is never measured
	// under this approval.
	var head string
	out, err := adm.Admit(ctx, intake.Request{
		Job: jobspec.Spec{
			Key:          JobKey(repo, issue.Number, c.ID),
			Targets:      []target.Target{Target(repo, issue.Number)},
			Suites:       cmd.Suites,
			BaseRef:      cmd.Base,
			CandidateRef: fmt.Sprintf("pull/%d/head", issue.Number),
			Title:        fmt.Sprintf("%s#%d: %s", repo, issue.Number, issue.Title),
			Requester:    user,
			Source:       "github",
		},
		Decide: func(ctx context.Context) (trigger.Decision, error) {
			var err error
			if head, err = in.pullHead(ctx, repo, issue.Number); err != nil {
				return trigger.Decision{}, err
			}
			return in.decide(ctx, repo, user)
		},
		Refuse:   refuse,
		Throttle: throttle("refusal", repo, issue.Number, user),
		Prepare: func(ctx context.Context, spec *jobspec.Spec) error {
			return in.pinHead(repo, issue.Number, head)(ctx, spec)
		},
	})
	if err != nil {
		return "", err
	}
	if out == Queued {
		if err := in.Client.React(ctx, repo, c.ID, "rocket"); err != nil {
			log.Warn("acknowledge with a reaction", "err", err)
		}
	}
	return out, nil
}

// control answers "/perfbot cancel" and "/perfbot status" with a reply.
func (in *Intake) control(ctx context.Context, repo string, number int, user, verb string) error {
	target := Target(repo, number)
	var text string
	switch {
	case verb == VerbFalseAlarm:
		return fmt.Errorf("false-alarm is not a control command")
	case in.Control == nil:
		text = fmt.Sprintf("`%s %s` is not available on this perfbot.", in.word(), verb)
	case verb == VerbCancel:
		n, err := in.Control.Cancel(ctx, target)
		if err != nil {
			return fmt.Errorf("cancel the jobs of %s: %w", target, err)
		}
		in.log().Info("jobs cancelled", "target", target, "user", user, "jobs", n)
		switch n {
		case 0:
			text = "there is no queued or running benchmark of this pull request to cancel."
		case 1:
			text = "cancelled 1 benchmark job of this pull request."
		default:
			text = fmt.Sprintf("cancelled %d benchmark jobs of this pull request.", n)
		}
	default:
		s, err := in.Control.Status(ctx, target)
		if err != nil {
			return fmt.Errorf("status of %s: %w", target, err)
		}
		text = QuoteLines(s)
		if strings.TrimSpace(s) == "" {
			text = "no benchmark of this pull request is queued or running."
		}
	}
	return in.Client.Reply(ctx, repo, number, fmt.Sprintf("@%s %s", user, text))
}

// markFalseAlarm answers "/perfbot false-alarm": the marks are recorded
// against the pull request's latest finished run and acknowledged with a
// reply naming them, escaped.
func (in *Intake) markFalseAlarm(ctx context.Context, repo string, number int, user string, cmd Command) error {
	text := fmt.Sprintf("`%s %s` is not available on this perfbot.", in.word(), VerbFalseAlarm)
	if in.Marks != nil {
		var err error
		text, err = in.Marks.MarkFalseAlarm(ctx, Target(repo, number), user, cmd.Benches, cmd.Reason)
		if err != nil {
			return fmt.Errorf("false alarm on %s#%d: %w", repo, number, err)
		}
		in.log().Info("false alarm marked", "repo", repo, "number", number, "user", user, "benchmarks", cmd.Benches)
		text = QuoteLines(text)
	}
	return in.Client.Reply(ctx, repo, number, fmt.Sprintf("@%s %s", user, text))
}

// pinHead returns the Prepare that pins the commit a run of pull request
// number is approved for: head, when the event named it (a check run's
// head_sha) or it was read as the request was taken in, else the pull
// request's head read now. The job measures that commit and no later
// push.
func (in *Intake) pinHead(repo string, number int, head string) func(context.Context, *jobspec.Spec) error {
	return func(ctx context.Context, spec *jobspec.Spec) error {
		if !intake.IsCommitID(head) {
			var err error
			if head, err = in.pullHead(ctx, repo, number); err != nil {
				return err
			}
		}
		spec.CandidateCommit = head
		return nil
	}
}

// pullHead reads the commit pull request number's head is at now, which
// must be a full commit id: the one a run is pinned to.
func (in *Intake) pullHead(ctx context.Context, repo string, number int) (string, error) {
	sha, err := in.Client.PullHead(ctx, repo, number)
	if err != nil {
		return "", err
	}
	if !intake.IsCommitID(sha) {
		return "", fmt.Errorf("pull request %s#%d: head.sha %q is not a full commit id", repo, number, sha)
	}
	return sha, nil
}

// Rerun is a check run's or check suite's "Re-run", as the signed
// payload names it.
type Rerun struct {
	// What says which was re-run ("check run", "check suite").
	What string
	// ID is the check run's or suite's id, and Last when it last
	// completed (or was last updated): together they name one click,
	// which is taken in once however often it is delivered.
	ID   int64
	Last time.Time
	// HeadSHA is the commit the check run or suite is for: the commit the
	// re-run measures.
	HeadSHA string
}

// HandleRerun queues a new run of pull request number of repo, asked for
// by sender through a check run's or check suite's "Re-run" in the
// delivery of that id: the same permission check as a comment, a new job
// key per delivery, the commit the check was for pinned. A re-run is
// taken in once per check run (or suite) and completion time, recorded in
// the history store: a replay of the same delivery under a new delivery id
// is Seen.
func (in *Intake) HandleRerun(ctx context.Context, repo string, number int, sender User, delivery string, rr Rerun) (Outcome, error) {
	if sender.Login == "" || sender.Type == "Bot" || (in.Repo != "" && !strings.EqualFold(repo, in.Repo)) {
		return Ignored, nil
	}
	if rr.ID <= 0 {
		return Ignored, nil
	}
	user, what := sender.Login, rr.What
	return in.admitter().Admit(ctx, intake.Request{
		Job: jobspec.Spec{
			Key:          RerunKey(repo, number, delivery),
			Targets:      []target.Target{Target(repo, number)},
			CandidateRef: fmt.Sprintf("pull/%d/head", number),
			Title:        fmt.Sprintf("%s#%d: %s re-run", repo, number, what),
			Requester:    user,
			Source:       "github",
		},
		Decide: func(ctx context.Context) (trigger.Decision, error) { return in.decide(ctx, repo, user) },
		Once: &intake.Once{Venue: "github-rerun", Item: strings.ToLower(repo),
			Revision: fmt.Sprintf("%s/%d@%s", strings.ReplaceAll(what, " ", "-"), rr.ID, rr.Last.UTC().Format(time.RFC3339Nano))},
		Refuse: func(ctx context.Context, text string) error {
			return in.Client.Reply(ctx, repo, number, text)
		},
		Throttle: throttle("refusal", repo, number, user),
		Prepare:  in.pinHead(repo, number, rr.HeadSHA),
	})
}

// policy is the trigger policy in force.
func (in *Intake) policy() trigger.Policy {
	if in.Policy != nil {
		return *in.Policy
	}
	return trigger.Default()
}

// decide asks the policy whether user may start runs on repo, looking the
// user's permission up only when the policy needs it.
func (in *Intake) decide(ctx context.Context, repo, user string) (trigger.Decision, error) {
	p := in.policy()
	perm := ""
	if p.NeedsPermission(user) {
		var err error
		if perm, err = in.Client.Permission(ctx, repo, user); err != nil {
			return trigger.Decision{}, err
		}
	}
	return p.GitHub(user, perm), nil
}

// Verbs of a command (package intake/command).
const (
	VerbRun        = command.VerbRun
	VerbHelp       = command.VerbHelp
	VerbCancel     = command.VerbCancel
	VerbStatus     = command.VerbStatus
	VerbFalseAlarm = command.VerbFalseAlarm
)

// Command is a parsed "/perfbot VERB ..." comment.
type Command = command.Command

// Usage is the answer to "/perfbot help" and to a malformed command, for
// the command word word.
func Usage(word string) string {
	return fmt.Sprintf("perfbot commands, one per comment line:\n\n"+
		"- `%[1]s run [SUITE...] [base=REF]`: benchmark this pull request against REF (default: the project branch), all suites or the ones named\n"+
		"- `%[1]s status`: list this pull request's queued and running benchmark jobs\n"+
		"- `%[1]s cancel`: cancel this pull request's queued and running benchmark jobs\n"+
		"- `%[1]s false-alarm BENCH... [-- REASON]`: mark the latest run's verdicts of these benchmarks false alarms, so that they need a larger change on that host to be called better or worse\n"+
		"- `%[1]s help`: show this text\n\n"+
		"Starting, cancelling, listing runs and marking false alarms need write permission on the repository (or a place on the trigger allow list).", word)
}

// ParseCommand finds the command in a Markdown comment body
// (command.ParseMarkdown).
func ParseCommand(body, word string) (Command, bool, error) {
	return command.ParseMarkdown(body, word)
}

// QuoteLines makes text that holds outside words (a status naming pull
// request titles) safe in a GitHub Markdown reply, line by line
// (report.MarkdownEscape): no mention, reference, link, markup, HTML,
// control or bidirectional formatting character takes effect.
func QuoteLines(text string) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	for i, l := range lines {
		lines[i] = report.MarkdownEscape(l)
	}
	return strings.Join(lines, "\n")
}
