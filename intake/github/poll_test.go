package github

import (
	"context"
	"fmt"
	"testing"
	"time"
)

func TestPoll(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Second)
	f.fake.issues[12] = Issue{Number: 12, Title: "Batch WAL syncs", PullRequest: true}
	f.fake.comments = []Comment{
		{ID: 1, Body: "nice", User: User{Login: "writer"}, IssueURL: "https://api.github.com/repos/acme/store/issues/12", Created: now.Add(-time.Minute)},
		{ID: 2, Body: "/perfbot run wal", User: User{Login: "writer"}, IssueURL: "https://api.github.com/repos/acme/store/issues/12", Created: now.Add(-30 * time.Second)},
		{ID: 3, Body: "/perfbot run", User: User{Login: "drive-by"}, IssueURL: "https://api.github.com/repos/acme/store/issues/12", Created: now},
	}
	for i := 0; i < 2; i++ { // a second poll handles nothing again
		if err := f.intake.Poll(ctx); err != nil {
			t.Fatal(err)
		}
	}
	reactions, replies := f.fake.snapshot()
	if f.queue.new != 1 || len(f.queue.jobs) != 1 || len(reactions) != 1 || len(replies) != 1 {
		t.Errorf("after two polls: %d new jobs of %d, reactions %v, replies %v; want 1, 1, one rocket, one refusal",
			f.queue.new, len(f.queue.jobs), reactions, replies)
	}
}

// TestPollOldCommentsUpdatedLately: 150 old comments edited within the
// hour do not hide a maintainer's new command (the listing is sorted by
// update and every page is read), the cursor only moves forward, and an
// edited comment is no command: GitHub does not say who edited it.
func TestPollOldCommentsUpdatedLately(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Second)
	f.fake.issues[12] = Issue{Number: 12, Title: "Batch WAL syncs", PullRequest: true}
	issue := "https://api.github.com/repos/acme/store/issues/12"
	for i := range 150 {
		f.fake.comments = append(f.fake.comments, Comment{ID: int64(100 + i), Body: fmt.Sprintf("old remark %d", i),
			User: User{Login: "writer"}, IssueURL: issue, Created: now.Add(-48 * time.Hour).Add(time.Duration(i) * time.Second),
			Updated: now.Add(-30 * time.Minute).Add(time.Duration(i) * time.Second)})
	}
	// An old comment of a non-maintainer, edited into a command, and an
	// old one of a maintainer, edited (by someone) into a command.
	f.fake.comments = append(f.fake.comments,
		Comment{ID: 300, Body: "/perfbot run", User: User{Login: "drive-by"}, IssueURL: issue,
			Created: now.Add(-47 * time.Hour), Updated: now.Add(-10 * time.Second)},
		Comment{ID: 301, Body: "/perfbot run", User: User{Login: "maintainer"}, IssueURL: issue,
			Created: now.Add(-46 * time.Hour), Updated: now.Add(-5 * time.Second)},
		Comment{ID: 400, Body: "/perfbot run wal", User: User{Login: "maintainer"}, IssueURL: issue, Created: now})
	for range 3 {
		if err := f.intake.Poll(ctx); err != nil {
			t.Fatal(err)
		}
		cursor, err := f.st.ScheduleLast(ctx, "github-poll:acme/store")
		if err != nil {
			t.Fatal(err)
		}
		if !cursor.Equal(now) {
			t.Errorf("cursor after a poll: %v, want the last update, %v", cursor, now)
		}
	}
	reactions, replies := f.fake.snapshot()
	if f.queue.new != 1 || len(f.queue.jobs) != 1 || f.queue.jobs[0].Key != "github:acme/store#12/comment/400" {
		t.Errorf("jobs %+v, want the one of comment 400", f.queue.jobs)
	}
	if len(reactions) != 1 || len(replies) != 0 {
		t.Errorf("reactions %v, replies %v; want one rocket for comment 400 and no reply to an edited comment", reactions, replies)
	}
}

// TestPollFailureHoldsCursor: a command whose handling fails (its issue
// cannot be read) holds the cursor at its update, so that the next poll
// takes it in again, and does not keep the commands after it from running.
func TestPollFailureHoldsCursor(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Second)
	f.fake.issues[12] = Issue{Number: 12, Title: "Batch WAL syncs", PullRequest: true}
	f.fake.comments = []Comment{
		{ID: 1, Body: "/perfbot run", User: User{Login: "maintainer"}, IssueURL: "https://api.github.com/repos/acme/store/issues/99", Created: now.Add(-time.Minute)},
		{ID: 2, Body: "/perfbot run", User: User{Login: "maintainer"}, IssueURL: "https://api.github.com/repos/acme/store/issues/12", Created: now},
	}
	if err := f.intake.Poll(ctx); err == nil {
		t.Error("poll: no error for the comment whose issue cannot be read")
	}
	if cursor, _ := f.st.ScheduleLast(ctx, "github-poll:acme/store"); !cursor.Equal(now.Add(-time.Minute)) {
		t.Errorf("cursor %v, want the failed comment's update, %v", cursor, now.Add(-time.Minute))
	}
	if len(f.queue.jobs) != 1 || f.queue.jobs[0].Key != "github:acme/store#12/comment/2" {
		t.Errorf("jobs %+v, want comment 2's", f.queue.jobs)
	}
	f.fake.issues[99] = Issue{Number: 99, Title: "Later", PullRequest: true}
	if err := f.intake.Poll(ctx); err != nil {
		t.Fatal(err)
	}
	if len(f.queue.jobs) != 2 || f.queue.jobs[1].Key != "github:acme/store#99/comment/1" {
		t.Errorf("jobs %+v, want comment 1's taken in again", f.queue.jobs)
	}
	if cursor, _ := f.st.ScheduleLast(ctx, "github-poll:acme/store"); !cursor.Equal(now) {
		t.Errorf("cursor %v, want %v", cursor, now)
	}
}
