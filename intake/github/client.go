package github

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	gh "github.com/google/go-github/v60/github"

	"github.com/perfbot/perfbot/intake"
)

// Client is the part of the GitHub REST API the intake uses, over the
// go-github client that posting uses too (venue/github.NewClient), so
// that a token and a GitHub App installation work alike.
type Client struct {
	gh *gh.Client
}

// NewClient wraps a go-github client.
func NewClient(c *gh.Client) *Client { return &Client{gh: c} }

// splitRepo splits "owner/name".
func splitRepo(repo string) (string, string, error) {
	owner, name, ok := strings.Cut(repo, "/")
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		return "", "", fmt.Errorf("github repository %q: want OWNER/NAME", repo)
	}
	return owner, name, nil
}

// Permission returns a user's permission on a repository ("admin",
// "maintain", "write", "triage", "read" or "none"): the role name when
// GitHub gives one, else the base permission.
func (c *Client) Permission(ctx context.Context, repo, user string) (string, error) {
	owner, name, err := splitRepo(repo)
	if err != nil {
		return "", err
	}
	// go-github's RepositoryPermissionLevel has no role_name: read it
	// with the client's own request and decoding.
	req, err := c.gh.NewRequest(http.MethodGet, fmt.Sprintf("repos/%s/%s/collaborators/%s/permission",
		url.PathEscape(owner), url.PathEscape(name), url.PathEscape(user)), nil)
	if err != nil {
		return "", err
	}
	var out struct {
		Permission string `json:"permission"`
		RoleName   string `json:"role_name"`
	}
	resp, err := c.gh.Do(ctx, req, &out)
	if resp != nil && resp.StatusCode == http.StatusNotFound {
		return "none", nil // not a collaborator
	}
	if err != nil {
		return "", fmt.Errorf("permission of %s on %s: %w", user, repo, err)
	}
	if out.RoleName != "" {
		return out.RoleName, nil
	}
	return out.Permission, nil
}

// React adds a reaction ("rocket", "eyes", "+1"...) to an issue comment.
func (c *Client) React(ctx context.Context, repo string, commentID int64, content string) error {
	owner, name, err := splitRepo(repo)
	if err != nil {
		return err
	}
	if _, _, err := c.gh.Reactions.CreateIssueCommentReaction(ctx, owner, name, commentID, content); err != nil {
		return fmt.Errorf("react to comment %d on %s: %w", commentID, repo, err)
	}
	return nil
}

// Reply posts a comment on an issue or pull request.
func (c *Client) Reply(ctx context.Context, repo string, number int, body string) error {
	owner, name, err := splitRepo(repo)
	if err != nil {
		return err
	}
	if _, _, err := c.gh.Issues.CreateComment(ctx, owner, name, number, &gh.IssueComment{Body: gh.String(body)}); err != nil {
		return fmt.Errorf("reply on %s#%d: %w", repo, number, err)
	}
	return nil
}

// Issue returns an issue or pull request.
func (c *Client) Issue(ctx context.Context, repo string, number int) (*Issue, error) {
	owner, name, err := splitRepo(repo)
	if err != nil {
		return nil, err
	}
	is, _, err := c.gh.Issues.Get(ctx, owner, name, number)
	if err != nil {
		return nil, fmt.Errorf("issue %s#%d: %w", repo, number, err)
	}
	out := issueOf(is)
	return &out, nil
}

// PullHead returns the commit a pull request's head is at now (GET
// /repos/{owner}/{repo}/pulls/{number}, head.sha).
func (c *Client) PullHead(ctx context.Context, repo string, number int) (string, error) {
	owner, name, err := splitRepo(repo)
	if err != nil {
		return "", err
	}
	pr, _, err := c.gh.PullRequests.Get(ctx, owner, name, number)
	if err != nil {
		return "", fmt.Errorf("pull request %s#%d: %w", repo, number, err)
	}
	sha := pr.GetHead().GetSHA()
	if !intake.IsCommitID(sha) {
		return "", fmt.Errorf("pull request %s#%d: head.sha %q is not a full commit id", repo, number, sha)
	}
	return sha, nil
}

// maxCommentPages bounds one listing of comments (100 a page): a poll
// that finds more handles these, oldest update first, and moves its cursor
// to the last one, so the next poll goes on from there.
const maxCommentPages = 50

// CommentsSince lists the repository's issue comments updated at or after
// t, in the order of their last update, oldest first: every page
// (GET /repos/{owner}/{repo}/issues/comments?since=T&sort=updated&direction=asc&per_page=100,
// following the Link header's next page) up to maxCommentPages.
func (c *Client) CommentsSince(ctx context.Context, repo string, since time.Time) ([]Comment, error) {
	owner, name, err := splitRepo(repo)
	if err != nil {
		return nil, err
	}
	opt := &gh.IssueListCommentsOptions{Sort: gh.String("updated"), Direction: gh.String("asc"),
		ListOptions: gh.ListOptions{PerPage: 100}}
	if !since.IsZero() {
		t := since.UTC()
		opt.Since = &t
	}
	var out []Comment
	for range maxCommentPages {
		cs, resp, err := c.gh.Issues.ListComments(ctx, owner, name, 0, opt)
		if err != nil {
			return nil, fmt.Errorf("comments of %s: %w", repo, err)
		}
		for _, ic := range cs {
			out = append(out, commentOf(ic))
		}
		if resp == nil || resp.NextPage == 0 {
			break
		}
		opt.Page = resp.NextPage
	}
	return out, nil
}
