package bisect

import (
	"context"
	"fmt"

	"github.com/perfbot/perfbot/runner"
)

// Repo is what Series reads of a repository (a *runner.Workspace).
type Repo interface {
	FirstParents(ctx context.Context, from, to string) ([]runner.Commit, error)
	Subject(ctx context.Context, commit string) (string, error)
}

// Series returns the first-parent commits after base up to head, oldest
// first, with their subjects, and the parent of the first: base itself
// when base is an ancestor of head, else the commit where head's line
// left base's history (a pull request's base branch that moved on).
func Series(ctx context.Context, r Repo, base, head string) (parent string, commits []Commit, err error) {
	fp, err := r.FirstParents(ctx, base, head)
	if err != nil {
		return "", nil, err
	}
	if len(fp) == 0 {
		return base, nil, nil
	}
	if fp[0].Parent == "" {
		return "", nil, fmt.Errorf("series %s..%s: %s shares no history with %s", base, head, head, base)
	}
	commits = make([]Commit, 0, len(fp))
	for _, c := range fp {
		subject, err := r.Subject(ctx, c.Hash)
		if err != nil {
			return "", nil, fmt.Errorf("series %s..%s: %w", base, head, err)
		}
		commits = append(commits, Commit{Hash: c.Hash, Subject: subject})
	}
	return fp[0].Parent, commits, nil
}
