package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/internal/gitrepo"
)

// TestWorktreeReusedClean checks that a reused worktree keeps nothing a
// previous job left: untracked files, ignored files and edits are gone.
func TestWorktreeReusedClean(t *testing.T) {
	r := gitrepo.New(t)
	first := r.Commit("one", map[string]string{"a.txt": "one\n", ".gitignore": "*.log\n"})
	second := r.Commit("two", map[string]string{"a.txt": "two\n"})
	ctx := context.Background()
	cache := t.TempDir()

	ws, err := OpenWorkspace(ctx, r.Dir, cache)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := ws.Worktree(ctx, "base", first)
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{"left-behind.txt": "x", "build.log": "x", "a.txt": "edited"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws.Close()

	ws, err = OpenWorkspace(ctx, r.Dir, cache)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	var progress strings.Builder
	ws.Progress = &progress
	again, err := ws.Worktree(ctx, "base", second)
	if err != nil {
		t.Fatal(err)
	}
	if again != dir || progress.Len() > 0 {
		t.Errorf("worktree %s (was %s) not reused as it was: %s", again, dir, progress.String())
	}
	for _, name := range []string{"left-behind.txt", "build.log"} {
		if _, err := os.Stat(filepath.Join(dir, name)); !os.IsNotExist(err) {
			t.Errorf("%s survived into the next job", name)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(data) != "two\n" {
		t.Errorf("a.txt = %q, want the second commit's content", data)
	}
	// HEAD names the user's HEAD, and a short ref resolves.
	if sha, err := ws.Resolve(ctx, "HEAD~1"); err != nil || sha != first {
		t.Errorf("Resolve(HEAD~1) = %s, %v; want %s", sha, err, first)
	}
	if _, err := ws.Resolve(ctx, "no-such-branch"); err == nil {
		t.Error("an unknown ref resolved")
	}
	if _, err := ws.Resolve(ctx, "--output=/tmp/x"); err == nil || !strings.Contains(err.Error(), "starts with '-'") {
		t.Errorf("Resolve of an option: err = %v", err)
	}
}

// TestRemotePullRefsResolve clones a repository by URL and resolves a pull
// request head that no branch names, as GitHub serves them.
func TestRemotePullRefsResolve(t *testing.T) {
	r := gitrepo.New(t)
	r.Commit("one", map[string]string{"a.txt": "one\n"})
	pr := r.Commit("pr", map[string]string{"a.txt": "pr\n"})
	r.Git("update-ref", "refs/pull/7/head", pr)
	r.Git("reset", "-q", "--hard", "HEAD~1")
	ctx := context.Background()
	ws, err := OpenWorkspace(ctx, "file://"+r.Dir, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	sha, err := ws.Resolve(ctx, "pull/7/head")
	if err != nil || sha != pr {
		t.Fatalf("Resolve(pull/7/head) = %s, %v; want %s", sha, err, pr)
	}
}
