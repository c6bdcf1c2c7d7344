package github

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	gh "github.com/google/go-github/v60/github"

	"github.com/perfbot/perfbot/intake"
	ghvenue "github.com/perfbot/perfbot/venue/github"
)

// dispatch acts on a verified, not yet handled delivery, parsed by
// go-github, and says what to answer: the status, the result counted in
// the metrics and the response text. An error means the delivery was not
// handled and GitHub's redelivery should be. Each event the intake acts on
// has one case and one small handler.
func (in *Intake) dispatch(ctx context.Context, delivery, event string, payload []byte) (int, string, string, error) {
	if !slices.Contains(gh.MessageTypes(), event) {
		return http.StatusAccepted, "ignored", fmt.Sprintf("event %q ignored", event), nil
	}
	ev, err := gh.ParseWebHook(event, payload)
	if err != nil {
		return http.StatusBadRequest, "bad_payload", event + " payload: " + err.Error(), nil
	}
	if _, ok := ev.(*gh.PingEvent); ok {
		return http.StatusOK, "ping", "pong", nil
	}
	if repoOf(ev) == "" {
		return http.StatusBadRequest, "bad_payload", event + " payload without repository.full_name", nil
	}
	switch e := ev.(type) {
	case *gh.PushEvent:
		if in.OnPush == nil {
			return ignored("push ignored: no branch is tracked")
		}
		code, result, text := in.handlePush(ctx, payload)
		if code >= 500 {
			return 0, "", "", fmt.Errorf("push to %s: %s", e.GetRef(), text)
		}
		return code, result, text, nil
	case *gh.IssueCommentEvent:
		return in.onIssueComment(ctx, e)
	case *gh.PullRequestEvent:
		return in.onPullRequest(ctx, e)
	case *gh.CheckRunEvent:
		return in.onCheckRun(ctx, delivery, e)
	case *gh.CheckSuiteEvent:
		return in.onCheckSuite(ctx, delivery, e)
	}
	return http.StatusAccepted, "ignored", fmt.Sprintf("event %q ignored", event), nil
}

// answered turns a handler's outcome into dispatch's answer.
func answered(out Outcome, err error) (int, string, string, error) {
	if err != nil {
		return 0, "", "", err
	}
	return http.StatusOK, string(out), string(out), nil
}

func ignored(why string) (int, string, string, error) {
	return http.StatusAccepted, "ignored", why, nil
}

// onIssueComment handles a new comment, as HandleComment says.
func (in *Intake) onIssueComment(ctx context.Context, e *gh.IssueCommentEvent) (int, string, string, error) {
	if e.GetAction() != "created" {
		return ignored(fmt.Sprintf("action %q ignored", e.GetAction()))
	}
	if e.Issue == nil || e.Comment == nil {
		return http.StatusBadRequest, "bad_payload", "issue_comment payload without issue or comment", nil
	}
	return answered(in.HandleComment(ctx, e.GetRepo().GetFullName(), ghvenue.IssueOf(e.Issue), ghvenue.CommentOf(e.Comment)))
}

// onCheckRun re-runs the pull request of a rerequested check run.
func (in *Intake) onCheckRun(ctx context.Context, delivery string, e *gh.CheckRunEvent) (int, string, string, error) {
	if e.GetAction() != "rerequested" {
		return ignored(fmt.Sprintf("check_run action %q ignored", e.GetAction()))
	}
	run := e.GetCheckRun()
	if run == nil {
		return http.StatusBadRequest, "bad_payload", "check_run payload without check_run", nil
	}
	if in.CheckName != "" && run.GetName() != in.CheckName {
		return ignored(fmt.Sprintf("check run %q is not perfbot's", run.GetName()))
	}
	last := run.GetCompletedAt().Time
	if last.IsZero() {
		last = run.GetStartedAt().Time
	}
	return in.rerun(ctx, delivery, e.GetRepo().GetFullName(), run.PullRequests, e.GetSender(),
		Rerun{What: "check run", ID: run.GetID(), Last: last, HeadSHA: run.GetHeadSHA()})
}

// onCheckSuite re-runs the pull request of a rerequested check suite.
func (in *Intake) onCheckSuite(ctx context.Context, delivery string, e *gh.CheckSuiteEvent) (int, string, string, error) {
	if e.GetAction() != "rerequested" {
		return ignored(fmt.Sprintf("check_suite action %q ignored", e.GetAction()))
	}
	if e.CheckSuite == nil {
		return http.StatusBadRequest, "bad_payload", "check_suite payload without check_suite", nil
	}
	cs := e.CheckSuite
	return in.rerun(ctx, delivery, e.GetRepo().GetFullName(), cs.PullRequests, e.GetSender(),
		Rerun{What: "check suite", ID: cs.GetID(), Last: cs.GetUpdatedAt().Time, HeadSHA: cs.GetHeadSHA()})
}

// rerun re-runs the first pull request a check run or suite names (a
// head in a fork names none: nothing to re-run).
func (in *Intake) rerun(ctx context.Context, delivery, repo string, prs []*gh.PullRequest, sender *gh.User, rr Rerun) (int, string, string, error) {
	if len(prs) == 0 || prs[0].GetNumber() <= 0 {
		return ignored(rr.What + " names no pull request of this repository")
	}
	return answered(in.HandleRerun(ctx, repo, prs[0].GetNumber(), ghvenue.UserOf(sender), delivery, rr))
}

// repoOf is the full name of the repository an event names, for the
// events dispatch acts on.
func repoOf(ev any) string {
	switch e := ev.(type) {
	case *gh.IssueCommentEvent:
		return e.GetRepo().GetFullName()
	case *gh.CheckRunEvent:
		return e.GetRepo().GetFullName()
	case *gh.CheckSuiteEvent:
		return e.GetRepo().GetFullName()
	case *gh.PushEvent:
		return e.GetRepo().GetFullName()
	case *gh.PullRequestEvent:
		return e.GetRepo().GetFullName()
	}
	return "-" // events that are ignored need none
}

// PushEvent is the part of GitHub's push webhook payload perfbot reads.
type PushEvent struct {
	Ref        string `json:"ref"`
	Before     string `json:"before"`
	After      string `json:"after"`
	Deleted    bool   `json:"deleted"`
	Repository struct {
		FullName string `json:"full_name"`
	} `json:"repository"`
}

// handlePush hands a push to OnPush, which queues the new head of a
// tracked branch.
func (in *Intake) handlePush(ctx context.Context, payload []byte) (int, string, string) {
	var ev PushEvent
	if err := json.Unmarshal(payload, &ev); err != nil {
		return http.StatusBadRequest, "bad_payload", "push payload: " + err.Error()
	}
	if ev.Deleted {
		return http.StatusAccepted, "ignored", "deleted ref ignored"
	}
	tracked, err := in.OnPush(ctx, ev.Repository.FullName, ev.Ref, ev.Before, ev.After)
	if err != nil {
		in.log().Error("handle push", "ref", ev.Ref, "err", err)
		return http.StatusInternalServerError, "error", "internal error"
	}
	if !tracked {
		return http.StatusAccepted, "ignored", fmt.Sprintf("push to %q: not a tracked branch", ev.Ref)
	}
	return http.StatusOK, "queued", "tracked branch queued"
}

// onPullRequest hands a merged pull request to OnMerged: GitHub sends the
// pull_request event with action "closed" when a pull request is merged
// or closed, and only a merge has merged true and the merge_commit_sha
// the merge left on the base branch (the merge, squash or last rebased
// commit). That commit is how perfbot links the request to the commit
// that landed it, to follow its verdicts up on the tracked branch.
func (in *Intake) onPullRequest(ctx context.Context, e *gh.PullRequestEvent) (int, string, string, error) {
	if in.OnMerged == nil {
		return ignored("pull_request ignored: no branch is tracked")
	}
	pr := e.GetPullRequest()
	if e.GetAction() != "closed" || pr == nil || !pr.GetMerged() {
		return ignored(fmt.Sprintf("pull_request action %q ignored: not a merge", e.GetAction()))
	}
	repo := e.GetRepo().GetFullName()
	if in.Repo != "" && !strings.EqualFold(repo, in.Repo) {
		return ignored(fmt.Sprintf("pull_request of %s ignored: not %s", repo, in.Repo))
	}
	number := e.GetNumber()
	if number <= 0 {
		number = pr.GetNumber()
	}
	sha := pr.GetMergeCommitSHA()
	if number <= 0 || !intake.IsCommitID(sha) {
		return http.StatusBadRequest, "bad_payload", "merged pull_request without number or merge_commit_sha", nil
	}
	if err := in.OnMerged(ctx, repo, number, sha); err != nil {
		return 0, "", "", fmt.Errorf("merge of #%d: %w", number, err)
	}
	return http.StatusOK, "merged", "merge recorded", nil
}
