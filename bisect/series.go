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
// first, with their subjects.
func Series(ctx context.Context, r Repo, base, head string) ([]Commit, error) {
	fp, err := r.FirstParents(ctx, base, head)
	if err != nil {
		return nil, err
	}
	out := make([]Commit, 0, len(fp))
	for _, c := range fp {
		subject, err := r.Subject(ctx, c.Hash)
		if err != nil {
			return nil, fmt.Errorf("series %s..%s: %w", base, head, err)
		}
		out = append(out, Commit{Hash: c.Hash, Subject: subject})
	}
	return out, nil
}
