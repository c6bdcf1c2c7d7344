package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Every git perfbot runs gets an environment built for it (gitEnv) and
// options that keep it from running anything a repository names: no
// fsmonitor, no hooks, no transport (noExec). Commands on a worktree name
// its git dir in the bare clone and its work tree explicitly, so git never
// discovers a repository, nor reads a config, in a tree the sandbox could
// write.

// noExec turns off what would let a repository's config or files run a
// program: the fsmonitor hook, hooks, and every transport (so no
// core.sshCommand, no remote helper, no lazy fetch).
var noExec = []string{
	"-c", "core.fsmonitor=false",
	"-c", "core.hooksPath=/dev/null",
	"-c", "protocol.allow=never",
}

// fetchOpts are noExec with the transports a configured source may use:
// local paths, https, ssh and git.
var fetchOpts = []string{
	"-c", "core.fsmonitor=false",
	"-c", "core.hooksPath=/dev/null",
	"-c", "protocol.allow=never",
	"-c", "protocol.file.allow=always",
	"-c", "protocol.https.allow=always",
	"-c", "protocol.ssh.allow=always",
	"-c", "protocol.git.allow=always",
}

// gitEnv is the whole environment of a git perfbot runs: PATH, the C
// locale, no prompts, no system or global config (and so no credential
// helpers, includes or aliases from the host), no home directory, and
// nothing else of perfbot's own environment, which holds its tokens.
func gitEnv(extra ...string) []string {
	path := os.Getenv("PATH")
	if path == "" {
		path = "/usr/local/bin:/usr/bin:/bin"
	}
	env := []string{
		"PATH=" + path,
		"LC_ALL=C",
		"GIT_TERMINAL_PROMPT=0",
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_ATTR_NOSYSTEM=1",
		"HOME=/nonexistent",
	}
	return append(env, extra...)
}

// runGit runs git with args (global options first) in dir under env and
// returns its trimmed standard output. Its error carries git's standard
// error.
func runGit(ctx context.Context, dir string, env []string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return "", &gitError{Args: subcommand(args), Stderr: msg}
	}
	return strings.TrimSpace(stdout.String()), nil
}

// subcommand drops the global options (-c k=v, --git-dir=, --work-tree=)
// from args, so an error names what git was asked to do.
func subcommand(args []string) []string {
	for i := 0; i < len(args); i++ {
		switch {
		case args[i] == "-c":
			i++
		case strings.HasPrefix(args[i], "--git-dir=") || strings.HasPrefix(args[i], "--work-tree="):
		default:
			return args[i:]
		}
	}
	return nil
}

// worktree is a checked-out tree and its git dir, the administrative
// directory git worktree add made in the bare clone (repo.git/worktrees/
// NAME). The sandbox may write dir; it cannot write gitDir.
type worktree struct {
	dir    string
	gitDir string
}

// git runs git on the worktree: explicit git dir and work tree, so git
// discovers nothing, and hardened options. It runs at the top of the work
// tree, as git apply resolves the patch's paths against the current
// directory even when the work tree is given; with the git dir given, git
// looks at no .git there.
//
// core.trustctime=false: the sandbox lends the worktree to its user and
// gives it back, which changes every file's ctime but not its content,
// owner or mtime; trusting ctime, the next job's checkout would read and
// hash every file of the tree again.
func (t worktree) git(ctx context.Context, args ...string) (string, error) {
	full := append(append([]string{"--git-dir=" + t.gitDir, "--work-tree=" + t.dir}, noExec...), "-c", "core.trustctime=false")
	return runGit(ctx, t.dir, gitEnv(), append(full, args...)...)
}

// bareGit runs git on a bare repository with the hardened options.
func bareGit(ctx context.Context, bare string, args ...string) (string, error) {
	full := append([]string{"--git-dir=" + bare}, noExec...)
	return runGit(ctx, bare, gitEnv(), append(full, args...)...)
}

type gitError struct {
	Args   []string
	Stderr string
}

func (e *gitError) Error() string {
	return fmt.Sprintf("git %s: %s", strings.Join(e.Args, " "), e.Stderr)
}

// identity lets git am and commit work without a configured user.
var identity = []string{"-c", "user.name=perfbot", "-c", "user.email=perfbot@localhost", "-c", "commit.gpgsign=false"}

// gitLimits are the rlimits of a git that handles a patch's content
// (apply, am): the largest file it may write and its data segment.
type gitLimits struct {
	fileSize int64
	data     int64
}

// gitLimitError is a git stopped by one of its gitLimits.
type gitLimitError struct {
	Args []string
	// Limit is "file size" or "memory".
	Limit  string
	Stderr string
}

func (e *gitLimitError) Error() string {
	return fmt.Sprintf("git %s: stopped by the %s limit: %s", strings.Join(e.Args, " "), e.Limit, e.Stderr)
}

// gateScript waits for one line on fd 3, closes it and runs its arguments:
// the rlimits are set on the waiting process before git starts.
const gateScript = `read -r _ <&3 || exit 125; exec 3<&-; exec "$@"`

// gitLimited is worktree.git under lim: git starts only once its rlimits
// are set (RLIMIT_FSIZE, RLIMIT_DATA). A git killed by SIGXFSZ or failing
// to allocate is a *gitLimitError.
func (t worktree) gitLimited(ctx context.Context, lim gitLimits, args ...string) (string, error) {
	full := append(append([]string{"--git-dir=" + t.gitDir, "--work-tree=" + t.dir}, noExec...), "-c", "core.trustctime=false")
	full = append(full, args...)
	cmd := exec.CommandContext(ctx, "/bin/sh", append([]string{"-c", gateScript, "perfbot-git", "git"}, full...)...)
	cmd.Dir = t.dir
	cmd.Env = gitEnv()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	gateR, gateW, err := os.Pipe()
	if err != nil {
		return "", err
	}
	defer gateW.Close()
	cmd.ExtraFiles = []*os.File{gateR}
	err = cmd.Start()
	gateR.Close()
	if err != nil {
		return "", fmt.Errorf("git %s: %w", strings.Join(subcommand(full), " "), err)
	}
	pid := cmd.Process.Pid
	for _, l := range []struct {
		resource int
		value    int64
		name     string
	}{{unix.RLIMIT_FSIZE, lim.fileSize, "RLIMIT_FSIZE"}, {unix.RLIMIT_DATA, lim.data, "RLIMIT_DATA"}} {
		if l.value <= 0 {
			continue
		}
		r := unix.Rlimit{Cur: uint64(l.value), Max: uint64(l.value)}
		if err := unix.Prlimit(pid, l.resource, &r, nil); err != nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			return "", fmt.Errorf("git %s: set %s: %w", strings.Join(subcommand(full), " "), l.name, err)
		}
	}
	if _, err := gateW.Write([]byte("go\n")); err != nil {
		_ = cmd.Process.Kill()
	}
	gateW.Close()
	if err := cmd.Wait(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGXFSZ {
				return "", &gitLimitError{Args: subcommand(full), Limit: "file size", Stderr: msg}
			}
		}
		if strings.Contains(msg, "Out of memory") || strings.Contains(msg, "Cannot allocate memory") || strings.Contains(msg, "out of memory") {
			return "", &gitLimitError{Args: subcommand(full), Limit: "memory", Stderr: msg}
		}
		if msg == "" {
			msg = err.Error()
		}
		return "", &gitError{Args: subcommand(full), Stderr: msg}
	}
	return strings.TrimSpace(stdout.String()), nil
}
