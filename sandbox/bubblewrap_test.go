package sandbox

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// newSandbox returns a Bubblewrap runner and a worktree for it. It skips
// the test, saying why, only where bubblewrap cannot run at all: the binary
// is missing (a failure under CI, which must install it) or the kernel
// forbids what it needs (user namespaces, or mounts for root in a
// container). Any other failure of the runner fails the test.
func newSandbox(t *testing.T) (*Bubblewrap, string) {
	t.Helper()
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("bubblewrap is not installed: CI must install the Debian package bubblewrap (%v)", err)
		}
		t.Skipf("bubblewrap is not installed (apt-get install bubblewrap), so the sandbox is not tested: %v", err)
	}
	probe := []string{"--ro-bind", "/", "/", "/bin/true"}
	if os.Geteuid() != 0 {
		probe = append([]string{"--unshare-user"}, probe...)
	}
	if out, err := exec.Command(bwrap, probe...).CombinedOutput(); err != nil {
		t.Skipf("this kernel does not let bubblewrap run (user namespaces or mounts forbidden), so the sandbox is not tested: %v: %s", err, out)
	}
	b := &Bubblewrap{}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := b.Check(ctx); err != nil {
		t.Fatalf("bubblewrap runs here but the sandbox does not: %v", err)
	}
	return b, worktree(t)
}

// worktree returns a fresh directory the sandbox user may reach.
func worktree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for d := dir; d != os.TempDir() && d != "/"; d = parentDir(d) {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func parentDir(p string) string {
	i := strings.LastIndex(p, "/")
	if i <= 0 {
		return "/"
	}
	return p[:i]
}

func run(t *testing.T, b Runner, spec Spec) *Result {
	t.Helper()
	if spec.Timeout == 0 {
		spec.Timeout = 30 * time.Second
	}
	if spec.Env == nil {
		spec.Env = []string{"PATH=/usr/local/go/bin:/usr/bin:/bin", "HOME=/tmp"}
	}
	res, err := b.Run(context.Background(), spec)
	if err != nil {
		t.Fatalf("Run(%q): %v", spec.Argv, err)
	}
	t.Logf("%q: exit %d, limit %q, note %q\nstdout: %.400s\nstderr: %.400s", spec.Argv, res.ExitCode, res.Limit, res.Note, res.Stdout, res.Stderr)
	return res
}

func sh(script string) []string { return []string{"/bin/sh", "-c", script} }

func TestSmoke(t *testing.T) {
	b, dir := newSandbox(t)
	res := run(t, b, Spec{Dir: dir, Argv: sh("id; pwd; echo hi > out.txt; cat /proc/1/cmdline | tr '\\0' ' '; env")})
	if !res.OK() {
		t.Fatal("smoke command failed")
	}
}

func ownerOf(fi os.FileInfo) int {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid)
	}
	return -1
}
