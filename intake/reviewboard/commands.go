package reviewboard

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/perfbot/perfbot/intake"
	"github.com/perfbot/perfbot/intake/command"
	"github.com/perfbot/perfbot/target"
	"github.com/perfbot/perfbot/trigger"
	rrb "github.com/perfbot/perfbot/venue/reviewboard"
)

// Word is the command word of a review's commands.
const Word = "/perfbot"

// Reviewer reads the published reviews of a review request, each followed
// by its published replies; *venue/reviewboard.Client is one.
type Reviewer interface {
	Reviews(ctx context.Context, id int) ([]rrb.Review, error)
}

// Marks keeps the time from which commands are obeyed across restarts;
// *store.Store is one.
type Marks interface {
	ScheduleLast(ctx context.Context, name string) (time.Time, error)
	SetScheduleLast(ctx context.Context, name string, t time.Time) error
}

// commandsMark names, in Marks, the time from which commands are obeyed.
const commandsMark = "poll:reviewboard:commands"

// firstLook is how old a command may be and still be obeyed when perfbot
// first reads a site's reviews: older commands were for a perfbot that was
// not reading them.
const firstLook = time.Hour

// Target is where the answers on review request id go: the target of its
// runs' answers, so that a mark finds the run answered there.
func Target(id int) target.Target { return target.ReviewRequest(id) }

// ParseCommand finds perfbot's command in a review's or reply's text of
// textType ("markdown": Markdown lines, code and HTML comments left out;
// anything else: plain lines), with the grammar of every venue (package
// intake/command). Quoted lines are someone else's words and ignored.
func ParseCommand(text, textType string) (cmd command.Command, ok bool, err error) {
	if textType == "markdown" {
		return command.ParseMarkdown(text, Word)
	}
	return command.ParsePlain(text, Word)
}

// commandsFrom is the time from which commands are obeyed: kept in Marks,
// set firstLook before the first poll that reads reviews.
func (p *Poller) commandsFrom(ctx context.Context) (time.Time, error) {
	if p.Reviews == nil || p.Marks == nil {
		return time.Time{}, nil
	}
	from, err := p.Marks.ScheduleLast(ctx, commandsMark)
	if err != nil {
		return time.Time{}, fmt.Errorf("review board poll: read the commands mark: %w", err)
	}
	if !from.IsZero() {
		return from, nil
	}
	now := time.Now
	if p.Now != nil {
		now = p.Now
	}
	from = now().Add(-firstLook)
	if err := p.Marks.SetScheduleLast(ctx, commandsMark, from); err != nil {
		return time.Time{}, fmt.Errorf("review board poll: save the commands mark: %w", err)
	}
	return from, nil
}

// commands reads the reviews and replies of r and answers each new
// command once: the review's body_top, then its body_bottom (a reply's
// too), the first line addressed to perfbot deciding. perfbot's own
// reviews and replies are never read as commands.
func (p *Poller) commands(ctx context.Context, adm *intake.Admitter, r rrb.Request, from time.Time) error {
	reviews, err := p.Reviews.Reviews(ctx, r.ID)
	if err != nil {
		return err
	}
	var errs []error
	for _, rv := range reviews {
		if rv.Own || rv.User == "" || rv.Timestamp.Before(from) {
			continue
		}
		cmd, ok, perr := ParseCommand(rv.BodyTop, rv.BodyTopTextType)
		if !ok {
			cmd, ok, perr = ParseCommand(rv.BodyBottom, rv.BodyBottomTextType)
		}
		if !ok {
			continue
		}
		if perr == nil && cmd.Verb == command.VerbFalseAlarm {
			_, err = p.falseAlarm(ctx, adm, r, rv, cmd)
		} else {
			// help, a malformed command, or one that Review Board has no
			// use for (runs start when a diff is uploaded).
			_, err = p.usage(ctx, adm, r, rv)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// once is what a review or reply is taken in as: replies are reviews, so
// one id sequence names both.
func once(rv rrb.Review) string { return "review:" + strconv.Itoa(rv.ID) }

// answerKey is the key of perfbot's answer to review or reply rv.
func answerKey(id int, rv rrb.Review, kind string) string {
	return fmt.Sprintf("reviewboard:%d/review/%d/%s", id, rv.ID, kind)
}

// usage answers a malformed command once with what perfbot understands.
func (p *Poller) usage(ctx context.Context, adm *intake.Admitter, r rrb.Request, rv rrb.Review) (intake.Outcome, error) {
	id := strconv.Itoa(r.ID)
	if adm.Tested != nil {
		fresh, err := adm.Tested.MarkTested(ctx, "reviewboard", id, once(rv), "usage")
		if err != nil || !fresh {
			return intake.Seen, err
		}
	}
	adm.Count("perfbot_requests_total", "source", "reviewboard", "result", string(intake.Invalid))
	if p.Poster == nil {
		return intake.Invalid, nil
	}
	text := "perfbot understands one command in a review or a reply here, on a line of its own: \"/perfbot false-alarm BENCH... [-- REASON]\", " +
		"which marks the verdicts of those benchmarks in the latest finished run of this review request false alarms, and needs the right to start runs. " +
		"Runs start by themselves when a diff is uploaded."
	_, err := p.Poster.Post(ctx, Target(r.ID), intake.RefusalMessage(answerKey(r.ID, rv, "usage"), "usage", text))
	if err != nil && adm.Tested != nil {
		err = errors.Join(err, adm.Tested.UnmarkTested(context.WithoutCancel(ctx), "reviewboard", id, once(rv)))
	}
	return intake.Invalid, err
}

// falseAlarm answers a "/perfbot false-alarm" review or reply once: from
// a user who may start runs (the policy a diff's submitter is held to),
// the verdicts are marked in the latest finished run answered to the
// review request, as by that user, and the marks are acknowledged in a
// review; anyone else is refused.
func (p *Poller) falseAlarm(ctx context.Context, adm *intake.Admitter, r rrb.Request, rv rrb.Review, cmd command.Command) (intake.Outcome, error) {
	id := strconv.Itoa(r.ID)
	if adm.Tested != nil {
		fresh, err := adm.Tested.MarkTested(ctx, "reviewboard", id, once(rv), "false-alarm")
		if err != nil || !fresh {
			return intake.Seen, err
		}
	}
	post := func(ctx context.Context, text string) error {
		if p.Poster == nil {
			return nil
		}
		_, err := p.Poster.Post(ctx, Target(r.ID), intake.RefusalMessage(answerKey(r.ID, rv, "false-alarm"), "false alarm", text))
		return err
	}
	policy := trigger.Default()
	if p.Policy != nil {
		policy = *p.Policy
	}
	d := policy.Tracker(trigger.ReviewBoard, rv.User)
	var err error
	if d.Allowed && p.FalseAlarms != nil {
		var text string
		text, err = p.FalseAlarms.MarkFalseAlarm(ctx, Target(r.ID), rv.User, cmd.Benches, cmd.Reason)
		if err == nil {
			// Marked: an answer that fails to post does not mark again.
			p.log().Info("false alarm marked", "review_request", r.ID, "review", rv.ID, "user", rv.User, "benchmarks", cmd.Benches)
			adm.Count("perfbot_requests_total", "source", "reviewboard", "result", string(intake.Answered))
			return intake.Answered, post(ctx, text)
		}
		err = fmt.Errorf("false alarm on review request %d: %w", r.ID, err)
		if adm.Tested != nil {
			err = errors.Join(err, adm.Tested.UnmarkTested(context.WithoutCancel(ctx), "reviewboard", id, once(rv)))
		}
		return "", err
	}
	if !d.Allowed {
		p.log().Info("false alarm refused", "review_request", r.ID, "review", rv.ID, "user", rv.User, "reason", d.Reason)
		adm.Count("perfbot_requests_total", "source", "reviewboard", "result", string(intake.Refused))
		posted, err := adm.Rationed(ctx, fmt.Sprintf("refusal:reviewboard:%d:review:%s", r.ID, rv.User), func(ctx context.Context) error { return post(ctx, d.Refusal) })
		if err != nil || !posted {
			return intake.Throttled, err
		}
		return intake.Refused, nil
	}
	return intake.Answered, post(ctx, "\"/perfbot false-alarm\" is not available on this perfbot.")
}

// claimsOf uses the store's claims for throttling refusals when it has
// them.
func claimsOf(t intake.Tested) intake.Claims {
	c, _ := t.(intake.Claims)
	return c
}

// log is the poller's logger.
func (p *Poller) log() *slog.Logger {
	if p.Log != nil {
		return p.Log
	}
	return slog.Default()
}
