package gitlab

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	gl "gitlab.com/gitlab-org/api/client-go"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/venue"
	"github.com/perfbot/perfbot/venue/retry"
)

// StatusDescriptionLimit keeps a commit status description to one short
// line, as GitHub's 140 characters do.
const StatusDescriptionLimit = 140

// MR is a parsed "GROUP/PROJECT!N" target.
type MR struct {
	Project string // path with namespace, subgroups included
	IID     int64  // the merge request's number in the project
}

func (m MR) String() string { return fmt.Sprintf("%s!%d", m.Project, m.IID) }

// ParseMR reads "GROUP/PROJECT!N".
func ParseMR(where string) (MR, error) {
	project, num, ok := strings.Cut(where, "!")
	n, err := strconv.ParseInt(num, 10, 64)
	if !ok || err != nil || n <= 0 || !config.ValidGitLabProject(project) {
		return MR{}, fmt.Errorf("gitlab target %q: want GROUP/PROJECT!N, such as acme/store!42", where)
	}
	return MR{Project: project, IID: n}, nil
}

// Marker is the hidden HTML comment that identifies the answer for key.
func Marker(key string) string { return venue.HTMLCommentMarker(key) }

// Post writes msg as a note on the merge request where
// ("GROUP/PROJECT!N"), editing perfbot's own note that carries msg.Key's
// marker when one exists, and sets the commit status when msg.State is
// set: on msg.Commit, the commit that was measured, never on a head pushed
// since (the note says when the head moved); without a commit, on the head
// for a state that is no verdict, and nowhere for a verdict. It returns
// the note's URL.
func (p *Poster) Post(ctx context.Context, where string, msg answer.Answer) (string, error) {
	mr, err := ParseMR(where)
	if err != nil {
		return "", err
	}
	if msg.Key == "" {
		return "", fmt.Errorf("gitlab %s: message has no key; without one a rerun cannot find its note", mr)
	}
	var link string
	var head *gl.MergeRequest
	err = p.retry.Do(ctx, "gitlab: note on "+mr.String(), func(ctx context.Context) error {
		me, err := p.self(ctx)
		if err != nil {
			return err
		}
		if head == nil {
			if head, err = p.mergeRequest(ctx, mr); err != nil {
				return err
			}
		}
		link, err = p.upsertNote(ctx, mr, me, head.WebURL, Marker(msg.Key), NoteBody(venue.WithHeadNote(msg, Format, head.SHA, "merge request")))
		return classify(err)
	})
	if err != nil {
		return "", retry.Redact(err, p.secrets()...)
	}
	if sha := venue.StatusCommit(msg, head.SHA); sha != "" {
		if err := p.setStatus(ctx, mr, sha, msg, p.statusTarget(msg, link)); err != nil {
			return link, retry.Redact(err, p.secrets()...)
		}
	}
	return link, nil
}

// mergeRequest reads the merge request (its web address and head commit).
func (p *Poster) mergeRequest(ctx context.Context, mr MR) (*gl.MergeRequest, error) {
	got, _, err := p.client.MergeRequests.GetMergeRequest(mr.Project, mr.IID, nil, gl.WithContext(ctx))
	if err != nil {
		return nil, classify(fmt.Errorf("get merge request %s: %w", mr, err))
	}
	return got, nil
}

// upsertNote finds perfbot's earlier note with marker (written by login)
// and edits it, or creates one. Looking before each try keeps a retried creation (whose first
// answer was lost) from posting twice.
func (p *Poster) upsertNote(ctx context.Context, mr MR, login, mrURL, marker, body string) (string, error) {
	n, err := p.findNote(ctx, mr, login, marker)
	if err != nil {
		return "", err
	}
	if n != nil {
		if n.Body == body {
			return noteURL(mrURL, n.ID), nil
		}
		n, _, err = p.client.Notes.UpdateMergeRequestNote(mr.Project, mr.IID, n.ID,
			&gl.UpdateMergeRequestNoteOptions{Body: gl.Ptr(body)}, gl.WithContext(ctx))
		if err != nil {
			return "", fmt.Errorf("edit note: %w", err)
		}
		return noteURL(mrURL, n.ID), nil
	}
	n, _, err = p.client.Notes.CreateMergeRequestNote(mr.Project, mr.IID,
		&gl.CreateMergeRequestNoteOptions{Body: gl.Ptr(body)}, gl.WithContext(ctx))
	if err != nil {
		return "", fmt.Errorf("create note: %w", err)
	}
	return noteURL(mrURL, n.ID), nil
}

// noteURL is a note's address: the merge request's page and its anchor.
func noteURL(mrURL string, id int64) string {
	if mrURL == "" {
		return ""
	}
	return fmt.Sprintf("%s#note_%d", mrURL, id)
}

// findNote pages through the merge request's notes, oldest first, for the
// first one written by login that is not a system note and starts with
// marker. A note by anyone else is never perfbot's, whatever it carries.
func (p *Poster) findNote(ctx context.Context, mr MR, login, marker string) (*gl.Note, error) {
	opt := &gl.ListMergeRequestNotesOptions{ListOptions: gl.ListOptions{PerPage: 100, Page: 1},
		OrderBy: gl.Ptr("created_at"), Sort: gl.Ptr("asc")}
	for {
		ns, resp, err := p.client.Notes.ListMergeRequestNotes(mr.Project, mr.IID, opt, gl.WithContext(ctx))
		if err != nil {
			return nil, fmt.Errorf("list notes: %w", err)
		}
		for _, n := range ns {
			if !n.System && strings.EqualFold(n.Author.Username, login) && strings.HasPrefix(n.Body, marker) {
				return n, nil
			}
		}
		if resp.NextPage == 0 {
			return nil, nil
		}
		opt.Page = resp.NextPage
	}
}

// setStatus sets the commit status on commit sha.
func (p *Poster) setStatus(ctx context.Context, mr MR, sha string, msg answer.Answer, target string) error {
	return p.retry.Do(ctx, "gitlab: commit status on "+mr.String(), func(ctx context.Context) error {
		opt := &gl.SetCommitStatusOptions{
			State:       statusState(msg.State),
			Name:        gl.Ptr(p.status),
			Description: gl.Ptr(truncateRunes(msg.Summary, StatusDescriptionLimit)),
		}
		if target != "" {
			opt.TargetURL = gl.Ptr(target)
		}
		_, _, err := p.client.Commits.SetCommitStatus(mr.Project, sha, opt, gl.WithContext(ctx))
		if refusedTransition(err) {
			// GitLab keeps a pending or running status from going to
			// pending again or to the state it has (a live answer
			// posted twice, a job queued again): the status stays.
			return nil
		}
		if err != nil {
			return classify(fmt.Errorf("set commit status on %.12s: %w", sha, err))
		}
		return nil
	})
}

// refusedTransition reports GitLab's 400 "Cannot transition status via
// :enqueue from :pending" (or :run from :running).
func refusedTransition(err error) bool {
	var er *gl.ErrorResponse
	return errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusBadRequest &&
		strings.Contains(er.Message, "Cannot transition status")
}

// runLink finds the run page link LinkRun put in an answer.
var runLink = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`/runs/[0-9]+\b`) })

// statusTarget is the commit status's link: the run's page under
// service.url when the answer links one, else the note.
func (p *Poster) statusTarget(msg answer.Answer, note string) string {
	if p.serviceURL == "" {
		return note
	}
	base := strings.TrimSuffix(p.serviceURL, "/")
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
