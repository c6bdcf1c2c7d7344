package github

import "time"

// IssueCommentEvent is the part of GitHub's issue_comment webhook payload
// (and of the issue comments API) that perfbot reads.
type IssueCommentEvent struct {
	Action     string  `json:"action"`
	Issue      Issue   `json:"issue"`
	Comment    Comment `json:"comment"`
	Repository struct {
		FullName string `json:"full_name"`
	} `json:"repository"`
	Sender User `json:"sender"`
}

// Issue is an issue or pull request.
type Issue struct {
	Number  int    `json:"number"`
	HTMLURL string `json:"html_url"`
	Title   string `json:"title"`
	// PullRequest is set when the issue is a pull request.
	PullRequest *struct {
		URL string `json:"url"`
	} `json:"pull_request"`
	State string `json:"state"`
}

// Comment is an issue comment.
type Comment struct {
	ID       int64     `json:"id"`
	Body     string    `json:"body"`
	User     User      `json:"user"`
	HTMLURL  string    `json:"html_url"`
	IssueURL string    `json:"issue_url"`
	Created  time.Time `json:"created_at"`
	// AuthorAssociation is OWNER, MEMBER, COLLABORATOR, CONTRIBUTOR, NONE...
	AuthorAssociation string `json:"author_association"`
}

// User is a GitHub account.
type User struct {
	Login string `json:"login"`
	Type  string `json:"type"` // "User" or "Bot"
}
