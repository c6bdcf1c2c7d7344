package runner

import (
	"context"
	"fmt"
	"strings"
)

// Commit is one commit of a branch's first-parent line and its first
// parent ("" for a root commit).
type Commit struct {
	Hash, Parent string
}

// FirstParents returns the commits of to's first-parent line that come
// after from, oldest first; from "" means to alone. Both are resolved as
// Resolve does.
func (w *Workspace) FirstParents(ctx context.Context, from, to string) ([]Commit, error) {
	head, err := w.Resolve(ctx, to)
	if err != nil {
		return nil, err
	}
	args := []string{"rev-list", "--first-parent", "--reverse", "--parents"}
	if from == "" {
		args = append(args, "--max-count=1", head)
	} else {
		base, err := w.Resolve(ctx, from)
		if err != nil {
			return nil, err
		}
		args = append(args, base+".."+head)
	}
	var out string
	if w.local != "" {
		out, err = localGit(ctx, w.local, args...)
	} else {
		out, err = bareGit(ctx, w.bare, args...)
	}
	if err != nil {
		return nil, fmt.Errorf("first-parent commits of %s in %s: %w", to, w.Source, err)
	}
	var commits []Commit
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		c := Commit{Hash: f[0]}
		if len(f) > 1 {
			c.Parent = f[1]
		}
		commits = append(commits, c)
	}
	return commits, nil
}

// Subject returns a commit's subject line, as git log prints it.
func (w *Workspace) Subject(ctx context.Context, commit string) (string, error) {
	args := []string{"log", "-1", "--format=%s", commit, "--"}
	var out string
	var err error
	if w.local != "" {
		out, err = localGit(ctx, w.local, args...)
	} else {
		out, err = bareGit(ctx, w.bare, args...)
	}
	if err != nil {
		return "", fmt.Errorf("subject of %s in %s: %w", commit, w.Source, err)
	}
	return strings.TrimSpace(out), nil
}
