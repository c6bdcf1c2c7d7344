package github

import (
	"context"
	"time"

	ghvenue "github.com/perfbot/perfbot/venue/github"
)

// Client is the part of GitHub the intake uses: the permission of a
// commenter, a pull request's head, recent comments, and a reaction or a
// reply. *ghvenue.Client (venue/github), the client answers are posted
// through, is one.
type Client interface {
	Permission(ctx context.Context, repo, user string) (string, error)
	PullHead(ctx context.Context, repo string, number int) (string, error)
	Issue(ctx context.Context, repo string, number int) (*Issue, error)
	CommentsSince(ctx context.Context, repo string, since time.Time) ([]Comment, error)
	React(ctx context.Context, repo string, commentID int64, content string) error
	Reply(ctx context.Context, repo string, number int, body string) error
}

var _ Client = (*ghvenue.Client)(nil)

// Issue, Comment and User are an issue or pull request, a comment and an
// account, as a webhook payload or the API names them.
type (
	Issue   = ghvenue.Issue
	Comment = ghvenue.Comment
	User    = ghvenue.User
)
