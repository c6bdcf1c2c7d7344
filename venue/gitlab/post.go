package gitlab

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	gl "gitlab.com/gitlab-org/api/client-go"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/target"
	"github.com/perfbot/perfbot/venue"
	"github.com/perfbot/perfbot/venue/retry"
)

// StatusDescriptionLimit keeps a commit status description to one short
// line, as GitHub's 140 characters do.
const StatusDescriptionLimit = 140

// MR is a merge request, the parts of a "gitlab:GROUP/PROJECT!N" target
// the REST API reads.
type MR struct {
	Project string // path with namespace, subgroups included
	IID     int64  // the merge request's number in the project
}

func (m MR) String() string { return fmt.Sprintf("%s!%d", m.Project, m.IID) }

// mrOf is the merge request t names. A short-form target ("!N") must have
// had its project filled in from config (target.WithRepo).
func mrOf(t target.Target) (MR, error) {
	if t.Venue != target.GitLab || t.Repo == "" || t.Number <= 0 {
		return MR{}, fmt.Errorf("gitlab target %q: want GROUP/PROJECT!N, such as acme/store!42", t.Where())
	}
	return MR{Project: t.Repo, IID: int64(t.Number)}, nil
}

// Marker is the hidden HTML comment that identifies the answer for key.
func Marker(key string) string { return venue.HTMLCommentMarker(key) }

// Post writes msg as a note on the merge request to
// ("GROUP/PROJECT!N"), editing perfbot's own note that carries msg.Key's
// marker when one exists, and sets the commit status when msg.State is
// set: on msg.Commit, the commit that was measured, never on a head pushed
// since (the note says when the head moved); without a commit, on the head
// for a state that is no verdict, and nowhere for a verdict. It returns
// the note's URL.
func (c *Client) Post(ctx context.Context, to target.Target, msg answer.Answer) (string, error) {
	mr, err := mrOf(to)
	if err != nil {
		return "", err
	}
	if msg.Key == "" {
		return "", fmt.Errorf("gitlab %s: message has no key; without one a rerun cannot find its note", mr)
	}
	var link string
	var head *MergeRequest
	err = c.retry.Do(ctx, "gitlab: note on "+mr.String(), func(ctx context.Context) error {
		me, err := c.Self(ctx)
		if err != nil {
			return err
		}
		if head == nil {
			got, err := c.MergeRequest(ctx, mr)
			if err != nil {
				return err
			}
			head = &got
		}
		link, err = c.upsertNote(ctx, mr, me, head.WebURL, Marker(msg.Key), NoteBody(venue.WithHeadNote(msg, Format, head.SHA, "merge request")))
		return err
	})
	if err != nil {
		return "", retry.Redact(err, c.secrets()...)
	}
	if sha := venue.StatusCommit(msg, head.SHA); sha != "" {
		if err := c.setStatus(ctx, mr, sha, msg, c.statusTarget(msg, link)); err != nil {
			return link, retry.Redact(err, c.secrets()...)
		}
	}
	return link, nil
}

// upsertNote finds perfbot's earlier note with marker (written by login)
// and edits it, or creates one. Looking before each try keeps a retried creation (whose first
// answer was lost) from posting twice.
func (c *Client) upsertNote(ctx context.Context, mr MR, login, mrURL, marker, body string) (string, error) {
	n, err := c.FindNote(ctx, mr, login, marker)
	if err != nil {
		return "", err
	}
	if n != nil {
		if n.Body == body {
			return noteURL(mrURL, n.ID), nil
		}
		edited, err := c.UpdateNote(ctx, mr, n.ID, body)
		if err != nil {
			return "", err
		}
		return noteURL(mrURL, edited.ID), nil
	}
	created, err := c.CreateNote(ctx, mr, body)
	if err != nil {
		return "", err
	}
	return noteURL(mrURL, created.ID), nil
}

// noteURL is a note's address: the merge request's page and its anchor.
func noteURL(mrURL string, id int64) string {
	if mrURL == "" {
		return ""
	}
	return fmt.Sprintf("%s#note_%d", mrURL, id)
}

// setStatus sets the commit status on commit sha, retrying.
func (c *Client) setStatus(ctx context.Context, mr MR, sha string, msg answer.Answer, target string) error {
	return c.retry.Do(ctx, "gitlab: commit status on "+mr.String(), func(ctx context.Context) error {
		return c.SetStatus(ctx, mr.Project, sha, CommitStatus{
			State:       statusState(msg.State),
			Name:        c.status,
			Description: truncateRunes(msg.Summary, StatusDescriptionLimit),
			TargetURL:   target,
		})
	})
}

// runLink finds the run page link LinkRun put in an answer.
var runLink = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`/runs/[0-9]+\b`) })

// statusTarget is the commit status's link: the run's page under
// service.url when the answer links one, else the note.
func (c *Client) statusTarget(msg answer.Answer, note string) string {
	if c.serviceURL == "" {
		return note
	}
	base := strings.TrimSuffix(c.serviceURL, "/")
	for rest := msg.Full(Format); ; {
		i := strings.Index(rest, base+"/runs/")
		if i < 0 {
			return note
		}
		if m := runLink().FindString(rest[i+len(base):]); m != "" && strings.HasPrefix(rest[i+len(base):], m) {
			return base + m
		}
		rest = rest[i+len(base):]
	}
}

// statusState is a commit status's state for an answer's: queued is
// pending, running is running, then success, failed (something got worse,
// or nothing could be compared) or canceled.
func statusState(s answer.State) gl.BuildStateValue {
	switch s {
	case answer.StateQueued:
		return gl.Pending
	case answer.StatePending:
		return gl.Running
	case answer.StateSuccess:
		return gl.Success
	case answer.StateCancelled:
		return gl.Canceled
	}
	return gl.Failed
}

// truncateRunes cuts s to at most n characters, ending in "…" when cut.
func truncateRunes(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
