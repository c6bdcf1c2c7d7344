package github

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Poll handles the comments made since the last poll, for installations
// without a public webhook endpoint. It lists every comment updated since
// its cursor, in the order of their updates (CommentsSince), and moves the
// cursor to the last update it handled: never back, so that old comments
// edited lately cannot hide newer ones. Each comment is handled once
// (HandleComment records its id); one whose handling failed holds the
// cursor for a day at most, while the comments after it are handled. A comment edited since it was made is
// not a command: the webhook takes only new comments ("created"), and
// GitHub does not say who edited one, so its permission cannot be checked.
func (in *Intake) Poll(ctx context.Context) error {
	if in.Repo == "" {
		return errors.New("github polling needs venues.github.repo")
	}
	cursor := "github-poll:" + in.Repo
	since, err := in.Seen.ScheduleLast(ctx, cursor)
	if err != nil {
		return err
	}
	if since.IsZero() {
		since = time.Now().Add(-time.Hour)
	}
	// GitHub's timestamps are whole seconds: list from a second before
	// the cursor, so that a comment updated in the cursor's second after
	// the last poll is listed too (its id keeps it from being handled
	// twice). The cursor itself never moves back.
	comments, err := in.Client.CommentsSince(ctx, in.Repo, since.Add(-time.Second))
	if err != nil {
		return err
	}
	latest := since
	// hold is the update time of the first comment whose handling failed
	// (within retryFor): the cursor stays there, so that the next poll
	// takes it in again; the comments after it are handled meanwhile, and
	// their ids keep them from being handled twice.
	var hold time.Time
	var errs []error
	for _, c := range comments {
		if c.Updated.IsZero() {
			c.Updated = c.Created
		}
		if _, ok, _ := ParseCommand(c.Body, in.word()); ok {
			if c.Edited() {
				in.log().Info("edited comment is not a command", "comment", c.ID, "user", c.User.Login)
				in.count("perfbot_requests_total", "source", "github", "result", "edited")
			} else if err := in.pollComment(ctx, c); err != nil {
				errs = append(errs, err)
				if hold.IsZero() && time.Since(c.Updated) < retryFor {
					hold = c.Updated
				}
			}
		}
		if c.Updated.After(latest) {
			latest = c.Updated
		}
	}
	if !hold.IsZero() && hold.Before(latest) {
		latest = hold
	}
	if latest.After(since) {
		if err := in.Seen.SetScheduleLast(ctx, cursor, latest); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// retryFor is how long a polled comment whose handling keeps failing holds
// the poll's cursor back; after that it is given up (and logged each time).
const retryFor = 24 * time.Hour

// pollComment handles one polled comment that holds a command.
func (in *Intake) pollComment(ctx context.Context, c Comment) error {
	number, err := issueNumber(c.IssueURL)
	if err != nil {
		in.log().Warn("polled comment skipped", "comment", c.ID, "err", err)
		return nil
	}
	out, err := in.pollOne(ctx, number, c)
	if err != nil {
		return err
	}
	in.log().Info("polled comment", "comment", c.ID, "number", number, "outcome", out)
	return nil
}

func (in *Intake) pollOne(ctx context.Context, number int, c Comment) (Outcome, error) {
	issue, err := in.Client.Issue(ctx, in.Repo, number)
	if err != nil {
		return "", err
	}
	return in.HandleComment(ctx, in.Repo, *issue, c)
}

// issueNumber reads the number at the end of an issue_url.
func issueNumber(issueURL string) (int, error) {
	i := strings.LastIndex(issueURL, "/")
	n, err := strconv.Atoi(issueURL[i+1:])
	if err != nil || i < 0 {
		return 0, fmt.Errorf("comment's issue_url %q does not end in an issue number", issueURL)
	}
	return n, nil
}
