package jira

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/intake"
	"github.com/perfbot/perfbot/intake/command"
	"github.com/perfbot/perfbot/internal/safetext"
	"github.com/perfbot/perfbot/report"
	"github.com/perfbot/perfbot/target"
	"github.com/perfbot/perfbot/trigger"
	rjira "github.com/perfbot/perfbot/venue/jira"
)

// Marks keeps the time from which comments are read, across restarts;
// *store.Store is one.
type Marks interface {
	ScheduleLast(ctx context.Context, name string) (time.Time, error)
	SetScheduleLast(ctx context.Context, name string, t time.Time) error
}

// commentsMark names, in Marks, the time from which comments are obeyed.
const commentsMark = "poll:jira-comments"

// firstLook is how old a comment may be and still be obeyed when comments
// are read for the first time: older commands were for a perfbot that did
// not read them.
const firstLook = time.Hour

// CommentKey names the answer to one comment.
func CommentKey(issue, comment string) string {
	return fmt.Sprintf("jira:%s/comment/%s", issue, comment)
}

// commentOnce is the revision under which a comment's id is recorded in
// Tested, beside the issue's attachment ids.
func commentOnce(id string) string { return "comment:" + id }

// since returns the time from which comments are obeyed: the one kept in
// Marks, or (the first time) started less firstLook, which it keeps. With
// no Marks, every comment is.
func (p *Poller) since(ctx context.Context, started time.Time) (time.Time, error) {
	if p.Marks == nil {
		return time.Time{}, nil
	}
	t, err := p.Marks.ScheduleLast(ctx, commentsMark)
	if err != nil || !t.IsZero() {
		return t, err
	}
	t = started.Add(-firstLook)
	return t, p.Marks.SetScheduleLast(ctx, commentsMark, t)
}

// comments acts on the commands among an issue's comments, each once:
// "/perfbot false-alarm" marks verdicts; any other command, or a malformed
// one, is answered with what perfbot understands on JIRA.
func (p *Poller) comments(ctx context.Context, adm *intake.Admitter, is rjira.Issue, since time.Time) error {
	var errs []error
	for _, c := range is.Comments {
		if c.Own || c.Author == "" || c.ID == "" {
			continue
		}
		cmd, ok, perr := command.Parse(c.Lines, "/perfbot")
		if !ok || c.Created.Before(since) {
			continue
		}
		if p.Tested == nil {
			return fmt.Errorf("jira %s comment %s: not read: no store to remember handled comments in (Poller.Tested)", is.Key, c.ID)
		}
		var err error
		if perr == nil && cmd.Verb == command.VerbFalseAlarm {
			_, err = p.falseAlarm(ctx, adm, is, c, cmd)
		} else {
			_, err = p.usage(ctx, adm, is, c, perr)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("jira %s comment %s: %w", is.Key, c.ID, err))
		}
	}
	return errors.Join(errs...)
}

// post answers comment c on its issue through Poster, under the answer
// key CommentKey/kind.
func (p *Poller) post(ctx context.Context, is rjira.Issue, c rjira.Comment, kind, summary, text string) error {
	if p.Poster == nil {
		return nil
	}
	msg := intake.RefusalMessage(CommentKey(is.Key, c.ID)+"/"+kind, is.Key+": "+summary, text)
	msg.Set(answer.JIRAWiki, answer.Rendering{Full: wikiLines(text)})
	msg = msg.Map(safetext.Answer)
	msg.Summary = summary
	_, err := p.Poster.Post(ctx, target.Issue(is.Key), msg)
	return err
}

// wikiLines escapes text for JIRA wiki markup line by line, so that its
// lines stay lines: a line "- X" becomes the list item "* X"; everything
// else is literal (report.JIRAEscape).
func wikiLines(text string) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	for i, l := range lines {
		if item, ok := strings.CutPrefix(l, "- "); ok {
			lines[i] = "* " + report.JIRAEscape(item)
			continue
		}
		lines[i] = report.JIRAEscape(l)
	}
	return strings.Join(lines, "\n") + "\n"
}

// usage answers a command perfbot does not take on JIRA, or a malformed
// one, once, with what it does take.
func (p *Poller) usage(ctx context.Context, adm *intake.Admitter, is rjira.Issue, c rjira.Comment, perr error) (intake.Outcome, error) {
	once := commentOnce(c.ID)
	fresh, err := p.Tested.MarkTested(ctx, "jira", is.Key, once, CommentKey(is.Key, c.ID)+"/usage")
	if err != nil || !fresh {
		return intake.Seen, err
	}
	adm.Count("perfbot_requests_total", "source", "jira", "result", string(intake.Invalid))
	text := "perfbot understands one command in JIRA comments, on a line of its own: \"/perfbot false-alarm BENCH... [-- REASON]\", " +
		"which marks the verdicts of those benchmarks in the latest finished run answered on this issue false alarms; it needs the right to have patches run. " +
		"Patches are run when attached to an issue perfbot watches."
	if perr != nil {
		text = perr.Error() + ".\n\n" + text
	}
	if err := p.post(ctx, is, c, "usage", "not understood", text); err != nil {
		return intake.Invalid, errors.Join(fmt.Errorf("answer: %w", err), p.Tested.UnmarkTested(context.WithoutCancel(ctx), "jira", is.Key, once))
	}
	return intake.Invalid, nil
}

// falseAlarm answers a "/perfbot false-alarm" comment once: from a user
// the policy lets have patches run, the verdicts are marked in the latest
// finished run answered to the issue, as by the comment's author, and the
// marks acknowledged; anyone else is refused. When marking fails the
// comment is read again on the next poll; once marked, an answer that
// fails to post does not mark again.
func (p *Poller) falseAlarm(ctx context.Context, adm *intake.Admitter, is rjira.Issue, c rjira.Comment, cmd command.Command) (intake.Outcome, error) {
	once := commentOnce(c.ID)
	fresh, err := p.Tested.MarkTested(ctx, "jira", is.Key, once, CommentKey(is.Key, c.ID)+"/false-alarm")
	if err != nil || !fresh {
		return intake.Seen, err
	}
	d := p.policy().Tracker(trigger.JIRA, c.Author)
	switch {
	case !d.Allowed:
		p.log().Info("false alarm refused", "issue", is.Key, "user", c.Author, "reason", d.Reason)
		adm.Count("perfbot_requests_total", "source", "jira", "result", string(intake.Refused))
		posted, err := adm.Rationed(ctx, fmt.Sprintf("refusal:jira:%s:comment:%s", is.Key, c.Author),
			func(ctx context.Context) error {
				return p.post(ctx, is, c, "refused", "false alarm not marked", d.Refusal)
			})
		if err != nil || !posted {
			return intake.Throttled, err
		}
		return intake.Refused, nil
	case p.FalseAlarms == nil:
		return intake.Answered, p.post(ctx, is, c, "false-alarm", "false alarm", "\"/perfbot false-alarm\" is not available on this perfbot.")
	}
	text, err := p.FalseAlarms.MarkFalseAlarm(ctx, target.Issue(is.Key), c.Author, cmd.Benches, cmd.Reason)
	if err != nil {
		err = fmt.Errorf("false alarm on %s: %w", is.Key, err)
		return "", errors.Join(err, p.Tested.UnmarkTested(context.WithoutCancel(ctx), "jira", is.Key, once))
	}
	p.log().Info("false alarm marked", "issue", is.Key, "comment", c.ID, "user", c.Author, "benchmarks", cmd.Benches)
	adm.Count("perfbot_requests_total", "source", "jira", "result", string(intake.Answered))
	return intake.Answered, p.post(ctx, is, c, "false-alarm", "false alarm", strings.TrimSpace(text))
}
