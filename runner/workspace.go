package runner

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"

	"github.com/perfbot/perfbot/internal/safefile"
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
	// Progress receives a line when a worktree is discarded; nil
	// discards it.
	Progress io.Writer
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
		top, err := localGit(ctx, abs, "rev-parse", "--show-toplevel")
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
	if err := os.MkdirAll(w.Dir, 0o755); err != nil {
		return nil, err
	}
	// git writes real paths into a worktree's .git file and its admin
	// dir; the checks before reuse compare against them.
	real, err := filepath.EvalSymlinks(w.Dir)
	if err != nil {
		return nil, err
	}
	w.Dir = real
	w.bare = filepath.Join(w.Dir, "repo.git")
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

// scpLikeURL matches git's scp-like remote syntax, user@host:path.
var scpLikeURL = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[\w.-]+@[\w.-]+:`) })

func isLocal(source string) bool {
	if strings.Contains(source, "://") || scpLikeURL().MatchString(source) {
		return false
	}
	return true
}

// sync creates the bare clone or fetches into it. A remote's pull request
// heads are fetched too, so "pull/123/head" resolves. A local source is
// never fetched from: its clone borrows the source's objects, so every
// commit of the source is already there, and refs are resolved in the
// source itself; a fetch would only cost time (and start git's automatic
// maintenance in the clone).
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
		args = append(append(w.fetchOpts(), args...), "--", src, w.bare)
		if _, err := runGit(ctx, w.Dir, w.fetchEnv(), args...); err != nil {
			return fmt.Errorf("clone %s: %w", w.Source, err)
		}
	}
	if w.local != "" {
		return nil
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
	args := append(append([]string{"--git-dir=" + w.bare}, w.fetchOpts()...), "fetch", "--quiet", "--force", "--prune", "--no-recurse-submodules", "--", src)
	if _, err := runGit(ctx, w.bare, w.fetchEnv(), append(args, refspecs...)...); err != nil {
		return fmt.Errorf("fetch %s: %w", w.Source, err)
	}
	return nil
}

// Resolve turns a ref as the user wrote it (a branch, tag, HEAD~1, a hash)
// into a commit hash. Refs of a local source are resolved in the source, so
// HEAD means the user's HEAD.
func (w *Workspace) Resolve(ctx context.Context, ref string) (string, error) {
	if strings.HasPrefix(ref, "-") {
		return "", fmt.Errorf("ref %q starts with '-': a branch, tag or commit was expected", ref)
	}
	var sha string
	var err error
	if w.local != "" {
		sha, err = localGit(ctx, w.local, "rev-parse", "--verify", "--quiet", ref+"^{commit}")
	} else {
		sha, err = bareGit(ctx, w.bare, "rev-parse", "--verify", "--quiet", ref+"^{commit}")
	}
	if err != nil || sha == "" {
		return "", fmt.Errorf("ref %q is not a commit in %s", ref, w.Source)
	}
	return sha, nil
}

// fetchVars are the host variables a clone or fetch of a remote source
// keeps: the ssh agent's socket and the proxy settings.
var fetchVars = []string{"SSH_AUTH_SOCK", "http_proxy", "https_proxy", "no_proxy", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY", "all_proxy"}

// fetchEnv is the environment of a clone or fetch of the source: git's
// own, plus fetchVars for a remote source.
func (w *Workspace) fetchEnv() []string {
	var extra []string
	if w.local == "" {
		for _, name := range fetchVars {
			if v, ok := os.LookupEnv(name); ok {
				extra = append(extra, name+"="+v)
			}
		}
	}
	return gitEnv(extra...)
}

// fetchOpts are the options of a clone or fetch: fetchOpts, and for a
// local source safe.directory, as git upload-pack runs in the user's
// repository, which another user may own.
func (w *Workspace) fetchOpts() []string {
	opts := append([]string(nil), fetchOpts...)
	if w.local != "" {
		opts = append(opts, "-c", "safe.directory=*")
	}
	return opts
}

// localGit runs git in the user's own local repository: git finds it from
// dir and reads its config (the user trusts it; perfbot never lends it to
// the sandbox), but not the host's global or system config, nor perfbot's
// environment, and it runs no hook or fsmonitor. safe.directory lets root
// read a repository another user owns, as the user asked for it.
func localGit(ctx context.Context, dir string, args ...string) (string, error) {
	full := append([]string{"-c", "safe.directory=*"}, noExec...)
	return runGit(ctx, dir, gitEnv(), append(full, args...)...)
}

// Worktree checks commit out into the named worktree, creating it or
// resetting and cleaning it so that nothing a previous job left remains,
// and returns its directory.
func (w *Workspace) Worktree(ctx context.Context, name, commit string) (string, error) {
	t, err := w.checkout(ctx, name, commit)
	return t.dir, err
}

// checkout is Worktree returning the worktree with its git dir. A worktree
// is reused only when its .git file is the one git worktree add wrote and
// its git dir points back at it; otherwise, or when a git step on it
// fails, it is removed and made anew from the cached clone.
func (w *Workspace) checkout(ctx context.Context, name, commit string) (worktree, error) {
	dir := filepath.Join(w.Dir, "wt", sanitize(name))
	if _, err := os.Lstat(dir); err == nil {
		t, problem := w.intact(dir)
		if problem == "" {
			problem = t.reset(ctx, commit)
		}
		if problem == "" {
			return t, nil
		}
		w.note("perfbot: worktree %s discarded and made anew from the cached clone: %s", sanitize(name), problem)
		if err := os.RemoveAll(dir); err != nil {
			return worktree{}, fmt.Errorf("discard worktree %s: %w", dir, err)
		}
	}
	_, _ = bareGit(ctx, w.bare, "worktree", "prune")
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return worktree{}, err
	}
	if _, err := bareGit(ctx, w.bare, "worktree", "add", "--quiet", "--detach", "--force", dir, commit); err != nil {
		return worktree{}, fmt.Errorf("worktree for %s: %w", name, err)
	}
	t, problem := w.intact(dir)
	if problem != "" {
		return worktree{}, fmt.Errorf("worktree for %s: git worktree add left %s", name, problem)
	}
	return t, nil
}

// reset brings a reused worktree to commit: it aborts what a killed job
// left half done, checks commit out over every change and removes every
// file git does not track. It returns what failed, or "".
func (t worktree) reset(ctx context.Context, commit string) string {
	if _, err := os.Lstat(filepath.Join(t.gitDir, "rebase-apply")); err == nil {
		if _, err := t.git(ctx, "am", "--abort"); err != nil {
			return err.Error()
		}
	}
	// checkout --force brings index and tracked files to commit over any
	// change (a reset --hard after it would change nothing); clean
	// removes the rest.
	steps := [][]string{
		{"checkout", "--quiet", "--detach", "--force", commit},
		{"clean", "-ffdxq"},
	}
	for _, args := range steps {
		if _, err := t.git(ctx, args...); err != nil {
			return err.Error()
		}
	}
	return ""
}

// intact checks that dir is still the worktree git worktree add made:
// dir is a directory, dir/.git a regular file with one link (not a
// symbolic link, not a directory) reading exactly "gitdir: GITDIR\n" with
// GITDIR a directory of the bare clone's worktrees, and GITDIR/gitdir
// points back at dir/.git. It returns the worktree, or what is wrong.
func (w *Workspace) intact(dir string) (worktree, string) {
	fi, err := os.Lstat(dir)
	if err != nil {
		return worktree{}, err.Error()
	}
	if !fi.IsDir() {
		return worktree{}, dir + " is not a directory"
	}
	data, err := safefile.ReadFile(dir, ".git", safefile.MaxGitFile)
	if err != nil {
		return worktree{}, err.Error()
	}
	gitDir, ok := strings.CutPrefix(string(data), "gitdir: ")
	gitDir, nl := strings.CutSuffix(gitDir, "\n")
	admin := filepath.Join(w.bare, "worktrees")
	if !ok || !nl || filepath.Dir(gitDir) != admin || filepath.Clean(gitDir) != gitDir || strings.ContainsAny(gitDir, "\n\x00") {
		return worktree{}, fmt.Sprintf(".git reads %q, not the git dir perfbot made in %s", truncate(string(data), 200), admin)
	}
	back, err := os.ReadFile(filepath.Join(gitDir, "gitdir"))
	if err != nil {
		return worktree{}, fmt.Sprintf("its git dir %s: %v", gitDir, err)
	}
	if want := filepath.Join(dir, ".git") + "\n"; string(back) != want {
		return worktree{}, fmt.Sprintf("its git dir %s belongs to %s", gitDir, strings.TrimSpace(string(back)))
	}
	return worktree{dir: dir, gitDir: gitDir}, ""
}

func (w *Workspace) note(format string, args ...any) {
	if w.Progress != nil {
		fmt.Fprintf(w.Progress, format+"\n", args...)
	}
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

var unsafeName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^A-Za-z0-9._-]+`) })

func sanitize(name string) string {
	s := unsafeName().ReplaceAllString(name, "_")
	if s == "" || s == "." || s == ".." {
		s = "_"
	}
	return s
}
