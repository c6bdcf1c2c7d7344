package github

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	gh "github.com/google/go-github/v60/github"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/target"
	"github.com/perfbot/perfbot/venue"
	"github.com/perfbot/perfbot/venue/retry"
)

// CommentLimit is GitHub's largest issue or pull request comment, in
// characters.
const CommentLimit = 65536

// StatusDescriptionLimit is the longest commit status description GitHub
// accepts.
const StatusDescriptionLimit = 140

// PR is a pull request, the parts of a "github:OWNER/REPO#N" target the
// REST API reads.
type PR struct {
	Owner, Repo string
	Number      int
}

func (p PR) String() string { return fmt.Sprintf("%s/%s#%d", p.Owner, p.Repo, p.Number) }

// prOf is the pull request t names. A short-form target ("#N") must
// have had its repository filled in from config (target.WithRepo).
func prOf(t target.Target) (PR, error) {
	if t.Venue != target.GitHub || t.Repo == "" || t.Number <= 0 {
		return PR{}, fmt.Errorf("github target %q: want OWNER/REPO#N, such as acme/store#42", t.Where())
	}
	return PR{Owner: t.Owner(), Repo: t.Name(), Number: t.Number}, nil
}

// Marker is the hidden HTML comment that identifies the answer for key.
func Marker(key string) string { return venue.HTMLCommentMarker(key) }

// Post writes msg as a comment on the pull request to ("OWNER/REPO#N"),
// editing perfbot's own comment that carries msg.Key's marker when one
// exists, and sets the "perfbot" commit status (or check run, with
// Config.Checks) when msg.State is set. The status goes on msg.Commit, the
// commit that was measured, never on a head pushed since; when the head
// moved the comment says so. An answer without a commit (queued, running,
// a failure before anything was checked out) puts its status on the
// current head, except a verdict, which speaks for a measured commit only.
// It returns the comment's URL.
func (p *Client) Post(ctx context.Context, to target.Target, msg answer.Answer) (string, error) {
	pr, err := prOf(to)
	if err != nil {
		return "", err
	}
	if msg.Key == "" {
		return "", fmt.Errorf("github %s: message has no key; without one a rerun cannot find its comment", pr)
	}
	var link, head string
	var me identity
	err = p.retry.Do(ctx, "github: comment on "+pr.String(), func(ctx context.Context) error {
		var err error
		if me, err = p.self(ctx); err != nil {
			return err
		}
		if head == "" && (msg.State != "" || msg.Commit != "") {
			if head, err = p.headSHA(ctx, pr); err != nil {
				return err
			}
		}
		link, err = p.upsertComment(ctx, pr, me.login, Marker(msg.Key), CommentBody(venue.WithHeadNote(msg, Format, head, "pull request")))
		return classify(err)
	})
	if err != nil {
		return "", retry.Redact(err, p.secrets()...)
	}
	if sha := venue.StatusCommit(msg, head); sha != "" {
		set := p.setStatus
		if p.checks {
			set = p.setCheck
		}
		if err := set(ctx, pr, sha, me.appID, msg, link); err != nil {
			return link, retry.Redact(err, p.secrets()...)
		}
	}
	return link, nil
}

// upsertComment finds perfbot's earlier comment with marker (written by
// login) and edits it, or creates one. Looking before each try keeps a
// retried creation (whose first answer was lost) from posting twice.
func (p *Client) upsertComment(ctx context.Context, pr PR, login, marker, body string) (string, error) {
	c, err := p.findComment(ctx, pr, login, marker)
	if err != nil {
		return "", err
	}
	if c != nil {
		if c.GetBody() == body {
			return c.GetHTMLURL(), nil
		}
		c, _, err = p.client.Issues.EditComment(ctx, pr.Owner, pr.Repo, c.GetID(), &gh.IssueComment{Body: gh.String(body)})
		if err != nil {
			return "", fmt.Errorf("edit comment: %w", err)
		}
		return c.GetHTMLURL(), nil
	}
	c, _, err = p.client.Issues.CreateComment(ctx, pr.Owner, pr.Repo, pr.Number, &gh.IssueComment{Body: gh.String(body)})
	if err != nil {
		return "", fmt.Errorf("create comment: %w", err)
	}
	return c.GetHTMLURL(), nil
}

// findComment pages through the pull request's comments for the first one
// written by login that starts with marker. A comment by anyone else is
// never perfbot's, whatever marker it carries: anyone who can comment can
// copy one.
func (p *Client) findComment(ctx context.Context, pr PR, login, marker string) (*gh.IssueComment, error) {
	opt := &gh.IssueListCommentsOptions{ListOptions: gh.ListOptions{PerPage: 100}}
	for {
		cs, resp, err := p.client.Issues.ListComments(ctx, pr.Owner, pr.Repo, pr.Number, opt)
		if err != nil {
			return nil, fmt.Errorf("list comments: %w", err)
		}
		for _, c := range cs {
			if strings.EqualFold(c.GetUser().GetLogin(), login) && strings.HasPrefix(c.GetBody(), marker) {
				return c, nil
			}
		}
		if resp.NextPage == 0 {
			return nil, nil
		}
		opt.Page = resp.NextPage
	}
}

// headSHA is the pull request's head commit.
func (p *Client) headSHA(ctx context.Context, pr PR) (string, error) {
	got, _, err := p.client.PullRequests.Get(ctx, pr.Owner, pr.Repo, pr.Number)
	if err != nil {
		return "", classify(fmt.Errorf("get pull request: %w", err))
	}
	sha := got.GetHead().GetSHA()
	if sha == "" {
		return "", fmt.Errorf("pull request %s has no head commit", pr)
	}
	return sha, nil
}

// setStatus sets the commit status on commit sha.
func (p *Client) setStatus(ctx context.Context, pr PR, sha string, _ int64, msg answer.Answer, link string) error {
	return p.retry.Do(ctx, "github: commit status on "+pr.String(), func(ctx context.Context) error {
		st := &gh.RepoStatus{
			State:       gh.String(statusState(msg.State)),
			Description: gh.String(truncateRunes(msg.Summary, StatusDescriptionLimit)),
			Context:     gh.String(p.context),
		}
		if link != "" {
			st.TargetURL = gh.String(link)
		}
		if _, _, err := p.client.Repositories.CreateStatus(ctx, pr.Owner, pr.Repo, sha, st); err != nil {
			return classify(fmt.Errorf("create status on %.12s: %w", sha, err))
		}
		return nil
	})
}

// statusState is a commit status's state for an answer's: GitHub's
// statuses know only pending, success, failure and error.
func statusState(s answer.State) string {
	switch s {
	case answer.StateQueued, answer.StatePending:
		return "pending"
	case answer.StateCancelled:
		return "error"
	}
	return string(s)
}

// checkState is a check run's status and conclusion for an answer's
// state: queued, then in_progress while running, then completed with
// success, failure, cancelled, or neutral when nothing could be compared.
func checkState(s answer.State) (status, conclusion string) {
	switch s {
	case answer.StateQueued:
		return "queued", ""
	case answer.StatePending:
		return "in_progress", ""
	case answer.StateSuccess:
		return "completed", "success"
	case answer.StateFailure:
		return "completed", "failure"
	case answer.StateCancelled:
		return "completed", "cancelled"
	}
	return "completed", "neutral"
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

// CommentBody is the comment perfbot posts for msg: the marker line, then
// the full Markdown rendering (Format), or the short one when the full one
// would pass CommentLimit, cut further at a line boundary if even that is
// too long.
func CommentBody(msg answer.Answer) string {
	head := Marker(msg.Key) + "\n"
	room := CommentLimit - utf8.RuneCountInString(head)
	md, ok := msg.Fit(Format, room, utf8.RuneCountInString)
	if ok {
		return head + md
	}
	return head + Cut(md, room)
}

// Format is the rendering GitHub reads: GitHub-flavoured Markdown.
const Format = answer.MarkdownGFM

// Cut shortens Markdown text to at most limit characters at line
// boundaries, as venue.CutMarkdown does, naming GitHub's comment limit.
func Cut(text string, limit int) string {
	return venue.CutMarkdown(text, limit, "GitHub's comment limit")
}

// CheckOutputLimit is the longest check run summary GitHub accepts, in
// characters.
const CheckOutputLimit = 65535

// checkTitleLimit keeps a check run's title to one readable line.
const checkTitleLimit = 200

// setCheck creates or updates the check run named p.context (of the App
// appID, when known) on commit sha: queued, in progress while msg is pending, else completed
// with a conclusion (success; failure when something got worse; neutral
// when nothing could be compared; cancelled) and the report as its output. A rerun on
// the same commit updates the run instead of adding one.
func (p *Client) setCheck(ctx context.Context, pr PR, sha string, appID int64, msg answer.Answer, link string) error {
	return p.retry.Do(ctx, "github: check run on "+pr.String(), func(ctx context.Context) error {
		status, conclusion := checkState(msg.State)
		output := &gh.CheckRunOutput{
			Title:   gh.String(truncateRunes(msg.Summary, checkTitleLimit)),
			Summary: gh.String(checkSummary(msg)),
		}
		var details *string
		if link != "" {
			details = gh.String(link)
		}
		var conc *string
		if conclusion != "" {
			conc = gh.String(conclusion)
		}
		opt := &gh.ListCheckRunsOptions{CheckName: gh.String(p.context)}
		if appID != 0 {
			opt.AppID = gh.Int64(appID)
		}
		existing, _, err := p.client.Checks.ListCheckRunsForRef(ctx, pr.Owner, pr.Repo, sha, opt)
		if err != nil {
			return classify(fmt.Errorf("list check runs on %.12s: %w", sha, err))
		}
		if runs := existing.CheckRuns; len(runs) > 0 {
			_, _, err = p.client.Checks.UpdateCheckRun(ctx, pr.Owner, pr.Repo, runs[0].GetID(), gh.UpdateCheckRunOptions{
				Name: p.context, Status: gh.String(status), Conclusion: conc, DetailsURL: details, Output: output,
			})
			if err != nil {
				return classify(fmt.Errorf("update check run %d: %w", runs[0].GetID(), err))
			}
			return nil
		}
		_, _, err = p.client.Checks.CreateCheckRun(ctx, pr.Owner, pr.Repo, gh.CreateCheckRunOptions{
			Name: p.context, HeadSHA: sha, Status: gh.String(status), Conclusion: conc, DetailsURL: details, Output: output,
		})
		if err != nil {
			return classify(fmt.Errorf("create check run on %.12s: %w", sha, err))
		}
		return nil
	})
}

// checkSummary is the report for a check run's output: the full Markdown
// when it fits, else the short form, cut at the limit as a last resort.
func checkSummary(msg answer.Answer) string {
	s, ok := msg.Fit(Format, CheckOutputLimit, utf8.RuneCountInString)
	if ok {
		return s
	}
	if s == "" {
		return msg.Summary
	}
	r := []rune(s)
	return string(r[:CheckOutputLimit-1]) + "…"
}

// HeadSHA is the current head commit of the pull request pull
// ("OWNER/REPO#N"), as GitHub reports it (GET /repos/OWNER/REPO/pulls/N).
func (p *Client) HeadSHA(ctx context.Context, pull target.Target) (string, error) {
	pr, err := prOf(pull)
	if err != nil {
		return "", err
	}
	sha, err := p.headSHA(ctx, pr)
	if err != nil {
		return "", retry.Redact(err, p.secrets()...)
	}
	return sha, nil
}
