// Package gerrit queues benchmark jobs for the changes of a Gerrit query:
// every new patch set, and the patch set a "/perfbot run" comment is
// posted on. Both go through intake.Admit with the trigger policy: the
// patch set's uploader (or the commenter) must be listed in
// triggers.tracker_users as "gerrit:NAME" or be a member of the
// configured Gerrit group.
//
// Polling reads the changes updated since the previous poll (Gerrit's
// since: operator), from a mark kept in the store, so a restart neither
// reads the whole history again nor misses what changed while perfbot
// was down; what was taken in is recorded per (change, patch set) and per
// comment, so nothing is queued or refused twice.
package gerrit

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
	"github.com/perfbot/perfbot/target"
	"github.com/perfbot/perfbot/trigger"
	rg "github.com/perfbot/perfbot/venue/gerrit"
)

// Gerrit is what the poller asks of the site; *venue/gerrit.Client is
// one.
type Gerrit interface {
	Query(ctx context.Context, q string, limit int) ([]rg.Change, error)
	Messages(ctx context.Context, change string) ([]rg.ChangeMessage, error)
	Patch(ctx context.Context, change string, ps int) (string, error)
	PatchURL(change string, ps int) string
	InGroup(ctx context.Context, group string, account int) (bool, error)
}

// Marks keeps the poll's mark across restarts; *store.Store is one.
type Marks interface {
	ScheduleLast(ctx context.Context, name string) (time.Time, error)
	SetScheduleLast(ctx context.Context, name string, t time.Time) error
}

// markName names the poll's mark in Marks.
const markName = "poll:gerrit"

// maxChanges bounds the changes one poll reads.
const maxChanges = 500

// firstLook is how old a comment may be and still be obeyed on the very
// first poll, when there is no mark yet: older commands were for a
// perfbot that was not there.
const firstLook = time.Hour

// Poller polls the changes of one query.
type Poller struct {
	Gerrit Gerrit
	Queue  intake.Enqueuer
	Tested intake.Tested
	Marks  Marks
	// Query is the Gerrit search ("status:open project:store").
	Query string
	// PatchSets queues every new patch set; Commands obeys "/perfbot
	// run" comments.
	PatchSets, Commands bool
	// Group, when set, names a Gerrit group whose members may start runs.
	Group string
	// Policy decides by user name (tracker_users "gerrit:NAME", or "*").
	// Nil means trigger.Default(), which lets no Gerrit user run.
	Policy *trigger.Policy
	// FalseAlarms records "/perfbot false-alarm" marks; nil answers that
	// the command is not available.
	FalseAlarms intake.Marker
	// Poster answers refusals, malformed commands and false-alarm marks;
	// nil only logs them.
	Poster  intake.Poster
	Metrics intake.Metrics
	Log     *slog.Logger
	// Now is the clock (default time.Now).
	Now func() time.Time

	mu sync.Mutex
}

// JobKey is the job of one patch set, Target its answer's target.
func JobKey(change, ps int) string { return fmt.Sprintf("gerrit:%d/%d", change, ps) }

// CommandKey is the job a comment asks for: one job per comment.
func CommandKey(change, ps int, messageID string) string {
	return fmt.Sprintf("gerrit:%d/%d/message/%s", change, ps, messageID)
}

// Target is where a patch set's answer goes.
func Target(change, ps int) target.Target { return target.Change(strconv.Itoa(change), ps) }

// Poll reads the changes updated since the mark and admits their new
// patch sets and commands; it returns how many jobs it queued. The mark
// moves to the newest update seen, and stays back at a change whose
// request failed, so that it is read again.
func (p *Poller) Poll(ctx context.Context) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now
	if p.Now != nil {
		now = p.Now
	}
	started := now()
	mark, err := p.Marks.ScheduleLast(ctx, markName)
	if err != nil {
		return 0, fmt.Errorf("gerrit poll: read mark: %w", err)
	}
	q := "(" + p.Query + ")"
	if !mark.IsZero() {
		// Inclusive, to the second: a change updated within the mark's
		// second is read again and found taken in.
		q += ` since:"` + mark.UTC().Format("2006-01-02 15:04:05 -0700") + `"`
	}
	changes, err := p.Gerrit.Query(ctx, q, maxChanges)
	if err != nil {
		return 0, fmt.Errorf("gerrit poll: %w", err)
	}
	commandsFrom := mark
	if mark.IsZero() {
		commandsFrom = started.Add(-firstLook)
	}
	next, hold := mark, time.Time{}
	for _, ch := range changes {
		if ch.Updated.After(next) {
			next = ch.Updated.Time
		}
	}
	log := p.Log
	if log == nil {
		log = slog.Default()
	}
	if len(changes) >= maxChanges {
		// Gerrit lists the newest first: older updates past the limit
		// are not read.
		log.Warn("gerrit poll: the query matched more changes than one poll reads; older updates are skipped, narrow venues.gerrit.query",
			"limit", maxChanges, "since", mark)
	}
	adm := &intake.Admitter{Queue: p.Queue, Tested: p.Tested, Claims: claimsOf(p.Tested), Poster: p.Poster, Metrics: p.Metrics, Log: log}
	queued := 0
	var errs []error
	for _, ch := range changes {
		n, err := p.change(ctx, adm, ch, commandsFrom, mark.IsZero())
		queued += n
		if err != nil {
			errs = append(errs, fmt.Errorf("change %d: %w", ch.Number, err))
			if hold.IsZero() || ch.Updated.Before(hold) {
				hold = ch.Updated.Time.Add(-time.Second)
			}
		}
	}
	if !hold.IsZero() && hold.Before(next) {
		next = hold
	}
	if next.After(mark) {
		if err := p.Marks.SetScheduleLast(ctx, markName, next); err != nil {
			errs = append(errs, fmt.Errorf("gerrit poll: save mark: %w", err))
		}
	}
	return queued, errors.Join(errs...)
}

// claimsOf uses the store's claims for throttling refusals when it has
// them.
func claimsOf(t intake.Tested) intake.Claims {
	c, _ := t.(intake.Claims)
	return c
}

// change admits one change's new patch set and its new commands.
func (p *Poller) change(ctx context.Context, adm *intake.Admitter, ch rg.Change, commandsFrom time.Time, firstPoll bool) (int, error) {
	if ch.Number <= 0 {
		return 0, nil
	}
	queued := 0
	var errs []error
	count := func(out intake.Outcome, err error) {
		if err != nil {
			errs = append(errs, err)
		}
		if out == intake.Queued {
			queued++
		}
	}
	if !strings.EqualFold(ch.Status, "NEW") {
		// Merged or abandoned: nothing to benchmark as a patch.
		return 0, nil
	}
	rev := ch.Revisions[ch.CurrentRevision]
	// A patch set that changes only the commit message (NO_CODE_CHANGE)
	// or nothing (NO_CHANGE) would measure the same code again; a
	// "/perfbot run" on it still runs.
	sameCode := rev.Kind == "NO_CODE_CHANGE" || rev.Kind == "NO_CHANGE"
	if ps := ch.PatchSet(); p.PatchSets && ps > 0 && !sameCode {
		who := rev.Uploader
		if who.ID == 0 {
			who = ch.Owner
		}
		count(p.admit(ctx, adm, ch, ps, who, JobKey(ch.Number, ps), strconv.Itoa(ps), "patch set", command.Command{}))
	}
	if p.Commands {
		msgs, err := p.Gerrit.Messages(ctx, strconv.Itoa(ch.Number))
		if err != nil {
			return queued, err
		}
		for _, m := range msgs {
			if m.Author.ID == 0 || strings.HasPrefix(m.Tag, "autogenerated:") || m.Revision <= 0 {
				continue
			}
			cmd, ok, perr := ParseCommand(m.Message)
			if !ok {
				continue
			}
			if m.Date.Before(commandsFrom) {
				if firstPoll && adm.Tested != nil {
					// Recorded as taken in, so that a later poll, whose
					// mark may be older than the comment, does not obey it.
					if _, err := adm.Tested.MarkTested(ctx, "gerrit", strconv.Itoa(ch.Number), "message:"+m.ID, "before-start"); err != nil {
						return queued, err
					}
				}
				continue
			}
			switch {
			case perr == nil && cmd.Verb == command.VerbRun:
				count(p.admit(ctx, adm, ch, m.Revision, m.Author, CommandKey(ch.Number, m.Revision, m.ID), "message:"+m.ID, "comment", cmd))
			case perr == nil && cmd.Verb == command.VerbFalseAlarm:
				count(p.falseAlarm(ctx, adm, ch, m, cmd))
			default:
				// help, a malformed command, or one Gerrit has no use for
				// (status, cancel).
				count(p.usage(ctx, adm, ch, m))
			}
		}
	}
	return queued, errors.Join(errs...)
}

// admit takes one request for patch set ps of ch in, from who: the suites
// and base of cmd, a "/perfbot run" (all and the project branch when
// empty).
func (p *Poller) admit(ctx context.Context, adm *intake.Admitter, ch rg.Change, ps int, who rg.Account, key, once, kind string, cmd command.Command) (intake.Outcome, error) {
	number := strconv.Itoa(ch.Number)
	to := Target(ch.Number, ps)
	title := fmt.Sprintf("%s %d/%d: %s", ch.Project, ch.Number, ps, oneLine(ch.Subject))
	login := who.Login()
	return adm.Admit(ctx, intake.Request{
		Job: jobspec.Spec{
			Key:       key,
			Targets:   []target.Target{to},
			PatchURL:  p.Gerrit.PatchURL(number, ps),
			Title:     title,
			Requester: login,
			Source:    "gerrit",
			Suites:    cmd.Suites,
			BaseRef:   cmd.Base,
		},
		Once:     &intake.Once{Venue: "gerrit", Item: number, Revision: once},
		Decide:   func(ctx context.Context) (trigger.Decision, error) { return p.decide(ctx, who) },
		Refuse:   adm.PostRefusal(to, key+"/refused", title, nil),
		Throttle: fmt.Sprintf("refusal:gerrit:%d:%s:%s", ch.Number, kind, login),
		Prepare: func(ctx context.Context, spec *jobspec.Spec) error {
			patch, err := p.Gerrit.Patch(ctx, number, ps)
			if np, ok := errors.AsType[*rg.NotPatchError](err); ok {
				return fmt.Errorf("%w: %v; no review posted", intake.ErrSkip, np)
			}
			if err != nil {
				return fmt.Errorf("fetch patch set %d of change %d: %w", ps, ch.Number, err)
			}
			spec.Patch = patch
			return nil
		},
	})
}

// decide applies the policy to a Gerrit account, then the group.
func (p *Poller) decide(ctx context.Context, who rg.Account) (trigger.Decision, error) {
	policy := trigger.Default()
	if p.Policy != nil {
		policy = *p.Policy
	}
	d := policy.Tracker(trigger.Gerrit, who.Login())
	if d.Allowed || p.Group == "" || who.ID == 0 {
		return d, nil
	}
	in, err := p.Gerrit.InGroup(ctx, p.Group, who.ID)
	if err != nil {
		return trigger.Decision{}, fmt.Errorf("group membership of account %d: %w", who.ID, err)
	}
	if in {
		return trigger.Decision{Allowed: true, Reason: fmt.Sprintf("Gerrit account %d is a member of group %s", who.ID, p.Group)}, nil
	}
	d.Reason += fmt.Sprintf(" and account %d is not a member of group %s", who.ID, p.Group)
	return d, nil
}

// usage answers a malformed command once with what perfbot understands.
func (p *Poller) usage(ctx context.Context, adm *intake.Admitter, ch rg.Change, m rg.ChangeMessage) (intake.Outcome, error) {
	number := strconv.Itoa(ch.Number)
	if adm.Tested != nil {
		fresh, err := adm.Tested.MarkTested(ctx, "gerrit", number, "message:"+m.ID, "usage")
		if err != nil || !fresh {
			return intake.Seen, err
		}
	}
	adm.Count("perfbot_requests_total", "source", "gerrit", "result", string(intake.Invalid))
	if p.Poster == nil {
		return intake.Invalid, nil
	}
	key := CommandKey(ch.Number, m.Revision, m.ID) + "/usage"
	text := "perfbot understands two commands here, each on a line of its own: \"/perfbot run [SUITE...] [base=REF]\", which benchmarks the patch set the comment is on, " +
		"and \"/perfbot false-alarm BENCH... [-- REASON]\", which marks the verdicts of those benchmarks in the latest finished run of that patch set false alarms. " +
		"Both need the right to start runs."
	_, err := p.Poster.Post(ctx, Target(ch.Number, m.Revision),
		intake.RefusalMessage(key, "usage", text))
	if err != nil && adm.Tested != nil {
		err = errors.Join(err, adm.Tested.UnmarkTested(context.WithoutCancel(ctx), "gerrit", number, "message:"+m.ID))
	}
	return intake.Invalid, err
}

// falseAlarm answers a "/perfbot false-alarm" message once: from a user
// who may start runs, the verdicts are marked in the latest finished run
// answered to the message's patch set, as by the message's author (their
// Gerrit login), and the marks are acknowledged; anyone else is refused.
func (p *Poller) falseAlarm(ctx context.Context, adm *intake.Admitter, ch rg.Change, m rg.ChangeMessage, cmd command.Command) (intake.Outcome, error) {
	number, once := strconv.Itoa(ch.Number), "message:"+m.ID
	if adm.Tested != nil {
		fresh, err := adm.Tested.MarkTested(ctx, "gerrit", number, once, "false-alarm")
		if err != nil || !fresh {
			return intake.Seen, err
		}
	}
	to := Target(ch.Number, m.Revision)
	login := m.Author.Login()
	post := func(ctx context.Context, text string) error {
		if p.Poster == nil {
			return nil
		}
		key := CommandKey(ch.Number, m.Revision, m.ID) + "/false-alarm"
		_, err := p.Poster.Post(ctx, to, intake.RefusalMessage(key, "false alarm", text))
		return err
	}
	d, err := p.decide(ctx, m.Author)
	if err == nil && d.Allowed && p.FalseAlarms != nil {
		var text string
		text, err = p.FalseAlarms.MarkFalseAlarm(ctx, to, login, cmd.Benches, cmd.Reason)
		if err == nil {
			// Marked: an answer that fails to post does not mark again.
			p.log().Info("false alarm marked", "change", ch.Number, "patch_set", m.Revision, "user", login, "benchmarks", cmd.Benches)
			adm.Count("perfbot_requests_total", "source", "gerrit", "result", string(intake.Answered))
			return intake.Answered, post(ctx, text)
		}
		err = fmt.Errorf("false alarm on change %d: %w", ch.Number, err)
	}
	if err != nil {
		if adm.Tested != nil {
			err = errors.Join(err, adm.Tested.UnmarkTested(context.WithoutCancel(ctx), "gerrit", number, once))
		}
		return "", err
	}
	if !d.Allowed {
		p.log().Info("false alarm refused", "change", ch.Number, "user", login, "reason", d.Reason)
		adm.Count("perfbot_requests_total", "source", "gerrit", "result", string(intake.Refused))
		posted, err := adm.Rationed(ctx, fmt.Sprintf("refusal:gerrit:%d:comment:%s", ch.Number, login), func(ctx context.Context) error { return post(ctx, d.Refusal) })
		if err != nil || !posted {
			return intake.Throttled, err
		}
		return intake.Refused, nil
	}
	return intake.Answered, post(ctx, "\"/perfbot false-alarm\" is not available on this perfbot.")
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 120 {
		s = string(r[:119]) + "…"
	}
	return s
}

// log is the poller's logger.
func (p *Poller) log() *slog.Logger {
	if p.Log != nil {
		return p.Log
	}
	return slog.Default()
}
