// Package gitrepo builds throwaway git repositories for tests: files,
// commits and patches made with the real git.
package gitrepo

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Repo is a git repository in a test's temporary directory.
type Repo struct {
	t   testing.TB
	Dir string
}

// New creates an empty repository with one branch, main.
func New(t testing.TB) *Repo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	r := &Repo{t: t, Dir: t.TempDir()}
	r.Git("init", "-q", "-b", "main")
	return r
}

// Git runs git in the repository and returns its trimmed output.
func (r *Repo) Git(args ...string) string {
	r.t.Helper()
	full := append([]string{"-c", "user.name=Test", "-c", "user.email=test@example.org", "-c", "commit.gpgsign=false"}, args...)
	cmd := exec.Command("git", full...)
	cmd.Dir = r.Dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// Write writes files (path -> content) into the work tree.
func (r *Repo) Write(files map[string]string) {
	r.t.Helper()
	for name, content := range files {
		p := filepath.Join(r.Dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			r.t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			r.t.Fatal(err)
		}
	}
}

// Commit writes files, commits everything and returns the commit hash.
func (r *Repo) Commit(msg string, files map[string]string) string {
	r.t.Helper()
	r.Write(files)
	r.Git("add", "-A")
	r.Git("commit", "-q", "-m", msg)
	return r.Git("rev-parse", "HEAD")
}

// Patch writes files on top of HEAD, captures the change as a patch file
// (mail format with git format-patch when mail is true, a plain diff
// otherwise), restores HEAD and returns the patch's path.
func (r *Repo) Patch(msg string, files map[string]string, mail bool) string {
	r.t.Helper()
	head := r.Git("rev-parse", "HEAD")
	r.Write(files)
	r.Git("add", "-A")
	var data string
	if mail {
		r.Git("commit", "-q", "-m", msg)
		data = r.Git("format-patch", "-1", "--stdout") + "\n"
	} else {
		data = r.Git("diff", "--cached", "--binary") + "\n"
	}
	r.Git("reset", "-q", "--hard", head)
	p := filepath.Join(r.t.TempDir(), "change.patch")
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		r.t.Fatal(err)
	}
	return p
}
