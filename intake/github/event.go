package github

import (
	"time"

	gh "github.com/google/go-github/v60/github"
)

// Issue is an issue or pull request, as the intake reads it from a
// webhook payload or the API.
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

func issueOf(is *gh.Issue) Issue {
	return Issue{Number: is.GetNumber(), HTMLURL: is.GetHTMLURL(), Title: is.GetTitle(),
		PullRequest: is.IsPullRequest(), State: is.GetState()}
}

func commentOf(c *gh.IssueComment) Comment {
	return Comment{ID: c.GetID(), Body: c.GetBody(), User: userOf(c.GetUser()), HTMLURL: c.GetHTMLURL(),
		IssueURL: c.GetIssueURL(), Created: c.GetCreatedAt().Time, Updated: c.GetUpdatedAt().Time}
}

func userOf(u *gh.User) User { return User{Login: u.GetLogin(), Type: u.GetType()} }
