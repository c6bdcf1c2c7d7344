package runner

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
)

// Workspace is perfbot's cached copy of a repository: a bare clone that
// borrows a local source's objects, or a mirror of a remote one, and one
// reusable worktree per variant. It is locked while a job uses it.
type Workspace struct {
	// Source is the repository as the user named it.
	Source string
	// Dir holds repo.git and the worktrees.
	Dir  string
	bare string
	// local is the source's directory when it is a local repository.
	local string
	lock  *os.File
}

// OpenWorkspace prepares the cached clone of source under cacheDir, fetching
// what is new, and locks it until Close.
func OpenWorkspace(ctx context.Context, source, cacheDir string) (*Workspace, error) {
	w := &Workspace{Source: source}
	if isLocal(source) {
		abs, err := filepath.Abs(source)
		if err != nil {
			return nil, err
		}
		top, err := git(ctx, abs, "rev-parse", "--show-toplevel")
		if err != nil {
			return nil, fmt.Errorf("repository %s: %w", source, err)
		}
		w.local = top
	}
	key := source
	if w.local != "" {
		key = w.local
	}
	sum := sha256.Sum256([]byte(key))
	w.Dir = filepath.Join(cacheDir, "repos", hex.EncodeToString(sum[:8]))
	w.bare = filepath.Join(w.Dir, "repo.git")
	if err := os.MkdirAll(w.Dir, 0o755); err != nil {
		return nil, err
	}
	lock, err := os.OpenFile(filepath.Join(w.Dir, "lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		lock.Close()
		return nil, fmt.Errorf("lock workspace %s: %w", w.Dir, err)
	}
	w.lock = lock
	if err := w.sync(ctx); err != nil {
		w.Close()
		return nil, err
	}
	return w, nil
}

// Close releases the workspace's lock.
func (w *Workspace) Close() error {
	if w.lock == nil {
		return nil
	}
	err := w.lock.Close()
	w.lock = nil
	return err
}

func isLocal(source string) bool {
	if strings.Contains(source, "://") || regexp.MustCompile(`^[\w.-]+@[\w.-]+:`).MatchString(source) {
		return false
	}
	return true
}

// sync creates the bare clone or fetches into it. A remote's pull request
// heads are fetched too, so "pull/123/head" resolves.
func (w *Workspace) sync(ctx context.Context) error {
	if _, err := os.Stat(filepath.Join(w.bare, "HEAD")); err != nil {
		args := []string{"clone", "--bare", "--quiet"}
		src := w.Source
		if w.local != "" {
			// --shared borrows the source's objects: no copy, and any
			// commit of the source (even one no ref names) is there.
			args = append(args, "--shared")
			src = w.local
		}
		if _, err := git(ctx, w.Dir, append(args, src, w.bare)...); err != nil {
			return fmt.Errorf("clone %s: %w", w.Source, err)
		}
		if w.local != "" {
			return nil
		}
	}
	src := w.Source
	if w.local != "" {
		src = w.local
	}
	refspecs := []string{"+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*"}
	if w.local == "" {
		// Pull requests, from forks too, are reachable as pull/N/head
		// on GitHub (merge-requests/N/head on GitLab).
		refspecs = append(refspecs, "+refs/pull/*/head:refs/pull/*/head", "+refs/merge-requests/*/head:refs/merge-requests/*/head")
	}
	if _, err := git(ctx, w.bare, append([]string{"fetch", "--quiet", "--force", "--prune", src}, refspecs...)...); err != nil {
		return fmt.Errorf("fetch %s: %w", w.Source, err)
	}
	return nil
}

// Resolve turns a ref as the user wrote it (a branch, tag, HEAD~1, a hash)
// into a commit hash. Refs of a local source are resolved in the source, so
// HEAD means the user's HEAD.
func (w *Workspace) Resolve(ctx context.Context, ref string) (string, error) {
	dir := w.bare
	if w.local != "" {
		dir = w.local
	}
	sha, err := git(ctx, dir, "rev-parse", "--verify", "--quiet", ref+"^{commit}")
	if err != nil || sha == "" {
		return "", fmt.Errorf("ref %q is not a commit in %s", ref, w.Source)
	}
	return sha, nil
}

// Worktree checks commit out into the named worktree, creating it or
// resetting and cleaning it so that nothing a previous job left remains.
func (w *Workspace) Worktree(ctx context.Context, name, commit string) (string, error) {
	dir := filepath.Join(w.Dir, "wt", sanitize(name))
	if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
		// Abort whatever a killed job left half done.
		_, _ = git(ctx, dir, "am", "--abort")
		if _, err := git(ctx, dir, "checkout", "--quiet", "--detach", "--force", commit); err == nil {
			if _, err := git(ctx, dir, "reset", "--quiet", "--hard", commit); err != nil {
				return "", err
			}
			if _, err := git(ctx, dir, "clean", "-ffdxq"); err != nil {
				return "", err
			}
			return dir, nil
		}
		// The worktree is broken beyond a reset: make it anew.
		_, _ = git(ctx, w.bare, "worktree", "remove", "--force", dir)
		if err := os.RemoveAll(dir); err != nil {
			return "", err
		}
	}
	_, _ = git(ctx, w.bare, "worktree", "prune")
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", err
	}
	if _, err := git(ctx, w.bare, "worktree", "add", "--quiet", "--detach", "--force", dir, commit); err != nil {
		return "", fmt.Errorf("worktree for %s: %w", name, err)
	}
	return dir, nil
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

func sanitize(name string) string {
	s := unsafeName.ReplaceAllString(name, "_")
	if s == "" || s == "." || s == ".." {
		s = "_"
	}
	return s
}
