package github

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	gh "github.com/google/go-github/v60/github"
)

// Issue is an issue or pull request, as a webhook payload or the API
// names it.
type Issue struct {
	Number  int
	HTMLURL string
	Title   string
	// PullRequest is true when the issue is a pull request.
	PullRequest bool
	State       string
}

// Comment is an issue comment.
type Comment struct {
	ID       int64
	Body     string
	User     User
	HTMLURL  string
	IssueURL string
	Created  time.Time
	// Updated is when the comment was last edited (Created when never).
	Updated time.Time
}

// Edited reports whether the comment was changed after it was created.
func (c Comment) Edited() bool { return c.Updated.After(c.Created) }

// User is a GitHub account.
type User struct {
	Login string
	Type  string // "User" or "Bot"
}

// IssueOf is go-github's issue (from the API or a webhook payload) as an
// Issue.
func IssueOf(is *gh.Issue) Issue {
	return Issue{Number: is.GetNumber(), HTMLURL: is.GetHTMLURL(), Title: is.GetTitle(),
		PullRequest: is.IsPullRequest(), State: is.GetState()}
}

// CommentOf is go-github's issue comment as a Comment.
func CommentOf(c *gh.IssueComment) Comment {
	return Comment{ID: c.GetID(), Body: c.GetBody(), User: UserOf(c.GetUser()), HTMLURL: c.GetHTMLURL(),
		IssueURL: c.GetIssueURL(), Created: c.GetCreatedAt().Time, Updated: c.GetUpdatedAt().Time}
}

// UserOf is go-github's user as a User.
func UserOf(u *gh.User) User { return User{Login: u.GetLogin(), Type: u.GetType()} }

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
func (p *Client) Permission(ctx context.Context, repo, user string) (string, error) {
	owner, name, err := splitRepo(repo)
	if err != nil {
		return "", err
	}
	// go-github's RepositoryPermissionLevel has no role_name: read it
	// with the client's own request and decoding.
	req, err := p.client.NewRequest(http.MethodGet, fmt.Sprintf("repos/%s/%s/collaborators/%s/permission",
		url.PathEscape(owner), url.PathEscape(name), url.PathEscape(user)), nil)
	if err != nil {
		return "", err
	}
	var out struct {
		Permission string `json:"permission"`
		RoleName   string `json:"role_name"`
	}
	resp, err := p.client.Do(ctx, req, &out)
	if resp != nil && resp.StatusCode == http.StatusNotFound {
		return "none", nil // not a collaborator
	}
	if err != nil {
		return "", p.redact(fmt.Errorf("permission of %s on %s: %w", user, repo, err))
	}
	if out.RoleName != "" {
		return out.RoleName, nil
	}
	return out.Permission, nil
}

// React adds a reaction ("rocket", "eyes", "+1"...) to an issue comment.
func (p *Client) React(ctx context.Context, repo string, commentID int64, content string) error {
	owner, name, err := splitRepo(repo)
	if err != nil {
		return err
	}
	if _, _, err := p.client.Reactions.CreateIssueCommentReaction(ctx, owner, name, commentID, content); err != nil {
		return p.redact(fmt.Errorf("react to comment %d on %s: %w", commentID, repo, err))
	}
	return nil
}

// Reply posts a comment on an issue or pull request: a reply to a
// command, never found again or edited as Post's answers are.
func (p *Client) Reply(ctx context.Context, repo string, number int, body string) error {
	owner, name, err := splitRepo(repo)
	if err != nil {
		return err
	}
	if _, _, err := p.client.Issues.CreateComment(ctx, owner, name, number, &gh.IssueComment{Body: gh.String(body)}); err != nil {
		return p.redact(fmt.Errorf("reply on %s#%d: %w", repo, number, err))
	}
	return nil
}

// Issue returns an issue or pull request.
func (p *Client) Issue(ctx context.Context, repo string, number int) (*Issue, error) {
	owner, name, err := splitRepo(repo)
	if err != nil {
		return nil, err
	}
	is, _, err := p.client.Issues.Get(ctx, owner, name, number)
	if err != nil {
		return nil, p.redact(fmt.Errorf("issue %s#%d: %w", repo, number, err))
	}
	out := IssueOf(is)
	return &out, nil
}

// PullHead returns the commit a pull request's head is at now (GET
// /repos/{owner}/{repo}/pulls/{number}, head.sha), as HeadSHA does for
// an "OWNER/REPO#N" target.
func (p *Client) PullHead(ctx context.Context, repo string, number int) (string, error) {
	owner, name, err := splitRepo(repo)
	if err != nil {
		return "", err
	}
	sha, err := p.headSHA(ctx, PR{Owner: owner, Repo: name, Number: number})
	if err != nil {
		return "", p.redact(fmt.Errorf("pull request %s#%d: %w", repo, number, err))
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
func (p *Client) CommentsSince(ctx context.Context, repo string, since time.Time) ([]Comment, error) {
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
		cs, resp, err := p.client.Issues.ListComments(ctx, owner, name, 0, opt)
		if err != nil {
			return nil, p.redact(fmt.Errorf("comments of %s: %w", repo, err))
		}
		for _, ic := range cs {
			out = append(out, CommentOf(ic))
		}
		if resp == nil || resp.NextPage == 0 {
			break
		}
		opt.Page = resp.NextPage
	}
	return out, nil
}
