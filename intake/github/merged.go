package github

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	gh "github.com/google/go-github/v60/github"

	"github.com/perfbot/perfbot/intake"
)

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
