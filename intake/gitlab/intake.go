// Package gitlab turns "/perfbot ..." notes on GitLab merge requests, and
// merge requests opened or pushed to, into requests for intake.Admitter.
// They arrive at the project's webhook, whose secret token is checked
// before anything is read; the commenter's (or author's) access level on
// the project is fetched through the API and weighed by the trigger
// policy before anything is queued, cancelled or described.
package gitlab

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/perfbot/perfbot/intake"
	"github.com/perfbot/perfbot/intake/command"
	ghintake "github.com/perfbot/perfbot/intake/github"
	"github.com/perfbot/perfbot/job/jobspec"
	"github.com/perfbot/perfbot/target"
	"github.com/perfbot/perfbot/trigger"
	rgitlab "github.com/perfbot/perfbot/venue/gitlab"
)

// Seen remembers deliveries and rationed replies; *store.Store is one.
type Seen interface {
	intake.Tested
	intake.Claims
	intake.DeliveryLog
}

// API is what the intake asks GitLab; *venue/gitlab.Client, the client
// posting uses too, is one.
type API interface {
	// MergeRequest reads a merge request (its head commit).
	MergeRequest(ctx context.Context, mr rgitlab.MR) (rgitlab.MergeRequest, error)
	// AccessLevel is a user's access level on a project, inherited from
	// groups included; 0 for a user who is no member.
	AccessLevel(ctx context.Context, project string, userID int64) (int, error)
	// CreateNote writes a note on a merge request.
	CreateNote(ctx context.Context, mr rgitlab.MR, body string) (rgitlab.Note, error)
}

// Intake handles the webhook deliveries of one GitLab project.
type Intake struct {
	// Client reads merge requests and access levels and posts replies.
	Client API
	Queue  intake.Enqueuer
	Seen   Seen
	// Control cancels and describes a merge request's jobs, for
	// "/perfbot cancel" and "/perfbot status"; nil answers that they are
	// not available.
	Control intake.Controller
	// Marks records "/perfbot false-alarm" marks; nil answers that the
	// command is not available.
	Marks intake.Marker
	// Secret is the webhook's secret token; deliveries without it are
	// refused.
	Secret []byte
	// Project ("GROUP/PROJECT") is the only project accepted.
	Project string
	// Policy decides who may start, cancel and list runs; nil means
	// trigger.Default().
	Policy *trigger.Policy
	// MinAccessLevel is the least access level that may (default 30,
	// Developer).
	MinAccessLevel int
	// MergeRequests runs merge requests when opened or pushed to.
	MergeRequests bool
	// Login is perfbot's own account, whose notes are never commands.
	Login string
	// Command is the command word (default "/perfbot").
	Command string
	Log     *slog.Logger
	Metrics intake.Metrics
	// OnMerged, if set, receives merged merge requests ("GROUP/PROJECT",
	// the IID and the merge_commit_sha the merge left on the target
	// branch), so that their verdicts are followed up on a tracked branch.
	OnMerged func(ctx context.Context, project string, iid int64, commit string) error
	// ReadTimeout bounds the reading of one body (default 1m).
	ReadTimeout time.Duration
	// RefusalEvery is the least time between two refusals (or help
	// texts) posted to one user on one merge request (default an hour).
	RefusalEvery time.Duration

	deliveries intake.Deliveries
}

// Outcome is what became of a note or delivery.
type Outcome = intake.Outcome

// Note is a note on a merge request, as the intake reads it.
type Note struct {
	ID     int64
	Body   string
	UserID int64
	User   string
	System bool
}

// MergeRequest is a merge request, as the intake reads it.
type MergeRequest struct {
	IID   int64
	Title string
	SHA   string // the head commit
}

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

func (in *Intake) least() int {
	if in.MinAccessLevel == 0 {
		return trigger.GitLabDeveloper
	}
	return in.MinAccessLevel
}

// Target is the answer target of a merge request.
func Target(project string, iid int64) target.Target { return target.MR(project, int(iid)) }

// NoteKey is the key of the job a note asks for: one job per note.
func NoteKey(project string, iid, note int64) string {
	return fmt.Sprintf("gitlab:%s!%d/note/%d", project, iid, note)
}

// CommitKey is the key of the job a merge request's head commit gets when
// merge requests run on their own.
func CommitKey(project string, iid int64, sha string) string {
	return fmt.Sprintf("gitlab:%s!%d/commit/%s", project, iid, sha)
}

// candidateRef is the ref GitLab keeps for a merge request's head, in the
// target project, forks included.
func candidateRef(iid int64) string { return fmt.Sprintf("merge-requests/%d/head", iid) }

func throttle(kind, project string, iid int64, user string) string {
	return fmt.Sprintf("%s:gitlab:%s!%d:%s", kind, strings.ToLower(project), iid, strings.ToLower(user))
}

// Usage is the answer to "/perfbot help" and to a malformed command.
func Usage(word string, least int) string {
	return fmt.Sprintf("perfbot commands, one per comment line:\n\n"+
		"- `%[1]s run [SUITE...] [base=REF]`: benchmark this merge request against REF (default: the project branch), all suites or the ones named\n"+
		"- `%[1]s status`: list this merge request's queued and running benchmark jobs\n"+
		"- `%[1]s cancel`: cancel this merge request's queued and running benchmark jobs\n"+
		"- `%[1]s false-alarm BENCH... [-- REASON]`: mark the latest run's verdicts of these benchmarks false alarms, so that they need a larger change on that host to be called better or worse\n"+
		"- `%[1]s help`: show this text\n\n"+
		"Starting, cancelling, listing runs and marking false alarms need the %[2]s role or more in this project (or a place on the trigger allow list).",
		word, trigger.GitLabRole(least))
}

// noteVenue is the venue under which note ids are recorded in the history
// store: a note is acted on once for as long as the store keeps its
// history, however often (and under whatever X-Gitlab-Event-UUID) it is
// delivered.
const noteVenue = "gitlab-note"

// HandleNote acts on one new note of merge request mr, once: the note's
// id is recorded in the history store first, and a note recorded before
// is Seen; when acting on it fails, the record is dropped so that GitLab's
// retry takes it in afresh.
func (in *Intake) HandleNote(ctx context.Context, project string, mr MergeRequest, n Note) (Outcome, error) {
	if n.System || n.User == "" || (in.Login != "" && strings.EqualFold(n.User, in.Login)) {
		return intake.Ignored, nil
	}
	if !strings.EqualFold(project, in.Project) {
		return intake.Ignored, nil
	}
	project = in.Project
	cmd, ok, perr := command.ParseMarkdown(n.Body, in.word())
	if !ok {
		return intake.Ignored, nil
	}
	item, id := strings.ToLower(project), fmt.Sprint(n.ID)
	fresh, err := in.Seen.MarkTested(ctx, noteVenue, item, id, NoteKey(project, mr.IID, n.ID))
	if err != nil {
		return "", err
	}
	if !fresh {
		in.log().Info("note handled before", "project", project, "mr", mr.IID, "note", n.ID)
		return intake.Seen, nil
	}
	out, err := in.handleNote(ctx, project, mr, n, cmd, perr)
	if err != nil {
		if uerr := in.Seen.UnmarkTested(context.WithoutCancel(ctx), noteVenue, item, id); uerr != nil {
			err = errors.Join(err, uerr)
		}
	}
	return out, err
}

// handleNote acts on the command cmd (or the parse error perr) of a note
// taken in for the first time.
func (in *Intake) handleNote(ctx context.Context, project string, mr MergeRequest, n Note, cmd command.Command, perr error) (Outcome, error) {
	user := n.User
	adm := in.admitter()
	reply := func(text string) func(context.Context) error {
		return func(ctx context.Context) error { return in.reply(ctx, project, mr.IID, text) }
	}
	if perr == nil && cmd.Verb == command.VerbHelp {
		posted, err := adm.Rationed(ctx, throttle("help", project, mr.IID, user), reply(fmt.Sprintf("@%s %s", user, Usage(in.word(), in.least()))))
		if err != nil || !posted {
			return intake.Throttled, err
		}
		return intake.Answered, nil
	}
	decide := func(ctx context.Context) (trigger.Decision, error) { return in.decide(ctx, project, n.UserID, user) }
	if perr != nil || cmd.Verb != command.VerbRun {
		d, err := decide(ctx)
		if err != nil {
			return "", err
		}
		if !d.Allowed {
			in.log().Info("command refused", "project", project, "mr", mr.IID, "user", user, "reason", d.Reason)
			posted, err := adm.Rationed(ctx, throttle("refusal", project, mr.IID, user), reply(d.Refusal))
			if err != nil || !posted {
				return intake.Throttled, err
			}
			return intake.Refused, nil
		}
		if perr != nil {
			return intake.Invalid, reply(fmt.Sprintf("@%s %s", user, perr))(ctx)
		}
		if cmd.Verb == command.VerbFalseAlarm {
			return intake.Answered, in.markFalseAlarm(ctx, project, mr.IID, user, cmd)
		}
		return intake.Answered, in.control(ctx, project, mr.IID, user, cmd.Verb)
	}
	return adm.Admit(ctx, intake.Request{
		Job: jobspec.Spec{
			Key:          NoteKey(project, mr.IID, n.ID),
			Targets:      []target.Target{Target(project, mr.IID)},
			Suites:       cmd.Suites,
			BaseRef:      cmd.Base,
			CandidateRef: candidateRef(mr.IID),
			Title:        fmt.Sprintf("%s!%d: %s", project, mr.IID, mr.Title),
			Requester:    user,
			Source:       "gitlab",
		},
		Prepare:  in.pinHead(project, mr),
		Decide:   decide,
		Refuse:   func(ctx context.Context, text string) error { return reply(text)(ctx) },
		Throttle: throttle("refusal", project, mr.IID, user),
	})
}

// HandleMergeRequest runs merge request mr, opened or pushed to by user,
// once per head commit, when MergeRequests is on and the policy lets the
// user start runs. A refusal is logged, not posted: nobody asked.
func (in *Intake) HandleMergeRequest(ctx context.Context, project string, mr MergeRequest, userID int64, user string) (Outcome, error) {
	if !in.MergeRequests || !strings.EqualFold(project, in.Project) || mr.SHA == "" {
		return intake.Ignored, nil
	}
	project = in.Project
	return in.admitter().Admit(ctx, intake.Request{
		Job: jobspec.Spec{
			Key:          CommitKey(project, mr.IID, mr.SHA),
			Targets:      []target.Target{Target(project, mr.IID)},
			CandidateRef: candidateRef(mr.IID),
			Title:        fmt.Sprintf("%s!%d: %s", project, mr.IID, mr.Title),
			Requester:    user,
			Source:       "gitlab",
		},
		Prepare: in.pinHead(project, mr),
		Once:    &intake.Once{Venue: "gitlab-mr", Item: fmt.Sprintf("%s!%d", strings.ToLower(project), mr.IID), Revision: mr.SHA},
		Decide:  func(ctx context.Context) (trigger.Decision, error) { return in.decide(ctx, project, userID, user) },
	})
}

// pinHead returns the Prepare that pins the commit a run of mr is
// approved for: the head the event named (merge_request.last_commit.id),
// else the merge request's head read now (GET
// /projects/:id/merge_requests/:iid, sha). The job measures that commit
// and no later push.
func (in *Intake) pinHead(project string, mr MergeRequest) func(context.Context, *jobspec.Spec) error {
	return func(ctx context.Context, spec *jobspec.Spec) error {
		sha := strings.ToLower(mr.SHA)
		if !intake.IsCommitID(sha) {
			got, err := in.Client.MergeRequest(ctx, rgitlab.MR{Project: project, IID: mr.IID})
			if err != nil {
				return err
			}
			if sha = strings.ToLower(got.SHA); !intake.IsCommitID(sha) {
				return fmt.Errorf("merge request %s!%d: sha %q is not a full commit id", project, mr.IID, got.SHA)
			}
		}
		spec.CandidateCommit = sha
		return nil
	}
}

// control answers "/perfbot cancel" and "/perfbot status".
func (in *Intake) control(ctx context.Context, project string, iid int64, user, verb string) error {
	target := Target(project, iid)
	var text string
	switch {
	case in.Control == nil:
		text = fmt.Sprintf("`%s %s` is not available on this perfbot.", in.word(), verb)
	case verb == command.VerbCancel:
		n, err := in.Control.Cancel(ctx, target)
		if err != nil {
			return fmt.Errorf("cancel the jobs of %s: %w", target, err)
		}
		in.log().Info("jobs cancelled", "target", target, "user", user, "jobs", n)
		switch n {
		case 0:
			text = "there is no queued or running benchmark of this merge request to cancel."
		case 1:
			text = "cancelled 1 benchmark job of this merge request."
		default:
			text = fmt.Sprintf("cancelled %d benchmark jobs of this merge request.", n)
		}
	default:
		s, err := in.Control.Status(ctx, target)
		if err != nil {
			return fmt.Errorf("status of %s: %w", target, err)
		}
		text = quoteLines(s)
		if strings.TrimSpace(s) == "" {
			text = "no benchmark of this merge request is queued or running."
		}
	}
	return in.reply(ctx, project, iid, fmt.Sprintf("@%s %s", user, text))
}

// markFalseAlarm answers "/perfbot false-alarm": the marks are recorded,
// as by user, against the merge request's latest finished run and
// acknowledged with a reply naming them, escaped.
func (in *Intake) markFalseAlarm(ctx context.Context, project string, iid int64, user string, cmd command.Command) error {
	text := fmt.Sprintf("`%s %s` is not available on this perfbot.", in.word(), command.VerbFalseAlarm)
	if in.Marks != nil {
		var err error
		text, err = in.Marks.MarkFalseAlarm(ctx, Target(project, iid), user, cmd.Benches, cmd.Reason)
		if err != nil {
			return fmt.Errorf("false alarm on %s!%d: %w", project, iid, err)
		}
		in.log().Info("false alarm marked", "project", project, "mr", iid, "user", user, "benchmarks", cmd.Benches)
		text = quoteLines(text)
	}
	return in.reply(ctx, project, iid, fmt.Sprintf("@%s %s", user, text))
}

// policy is the trigger policy in force.
func (in *Intake) policy() trigger.Policy {
	if in.Policy != nil {
		return *in.Policy
	}
	return trigger.Default()
}

// decide asks the policy whether user may start runs, looking the user's
// access level up only when the policy needs it.
func (in *Intake) decide(ctx context.Context, project string, userID int64, user string) (trigger.Decision, error) {
	p := in.policy()
	level := 0
	if p.NeedsAccessLevel(user) {
		var err error
		if level, err = in.accessLevel(ctx, project, userID); err != nil {
			return trigger.Decision{}, err
		}
	}
	return p.GitLab(user, level, in.least()), nil
}

// accessLevel is a user's access level on the project, inherited from
// groups included (GET /projects/:id/members/all/:user_id); a user who is
// no member has none.
func (in *Intake) accessLevel(ctx context.Context, project string, userID int64) (int, error) {
	if userID <= 0 {
		return 0, nil
	}
	return in.Client.AccessLevel(ctx, project, userID)
}

// reply posts a note on the merge request.
func (in *Intake) reply(ctx context.Context, project string, iid int64, body string) error {
	if _, err := in.Client.CreateNote(ctx, rgitlab.MR{Project: project, IID: iid}, body); err != nil {
		return fmt.Errorf("reply on %s!%d: %w", project, iid, err)
	}
	return nil
}

// gitlabSigils are GitLab's reference sigils that GitHub Markdown escaping
// leaves alone: milestones and snippets.
var gitlabSigils = strings.NewReplacer("%", "%\u200b", "$", "$\u200b")

// quoteLines makes text that holds outside words (a status naming merge
// request titles) safe in a GitLab Markdown note, line by line: escaped as
// for GitHub (ghintake.QuoteLines), and "%" and "$" broken up so that no
// milestone or snippet reference forms.
func quoteLines(text string) string {
	return gitlabSigils.Replace(ghintake.QuoteLines(text))
}
