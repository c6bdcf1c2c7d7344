package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLendAndGiveBack(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("changing owners needs root")
	}
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "a/b"), 0o755)
	os.WriteFile(filepath.Join(dir, "a/b/f"), []byte("x"), 0o644)
	os.Symlink("/etc/passwd", filepath.Join(dir, "link"))
	lent, err := lend([]string{dir}, 65534, 65534)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, filepath.Join(dir, "a/b/f")} {
		if fi, _ := os.Lstat(p); ownerOf(fi) != 65534 {
			t.Errorf("%s owned by %d while lent", p, ownerOf(fi))
		}
	}
	if fi, _ := os.Stat("/etc/passwd"); ownerOf(fi) != 0 {
		t.Fatal("a symbolic link was followed")
	}
	// What the command creates comes back too, without set-user-ID.
	created := filepath.Join(dir, "a/new")
	os.WriteFile(created, []byte("x"), 0o4755)
	os.Lchown(created, 65534, 65534)
	if _, err := lent.restore(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, filepath.Join(dir, "a/b/f"), created, filepath.Join(dir, "link")} {
		if fi, _ := os.Lstat(p); ownerOf(fi) != 0 {
			t.Errorf("%s owned by %d after restore", p, ownerOf(fi))
		}
	}
	if fi, _ := os.Stat(created); fi.Mode()&os.ModeSetuid != 0 {
		t.Errorf("%s kept its set-user-ID bit: %v", created, fi.Mode())
	}
}

func TestLendRefusesSystemDirectories(t *testing.T) {
	for _, d := range []string{"/", "/tmp", "/srv", "/usr/local/src", "/etc/perfbot", "relative/dir"} {
		if _, err := lend([]string{d}, 65534, 65534); err == nil {
			t.Errorf("lend(%s) was allowed", d)
		}
	}
}

// TestLendSkipsHardLinks plants a hard link to a root-owned file outside
// the worktree: neither lending, nor a sandboxed command, nor giving back
// may change that file's owner, and the note says it was skipped.
func TestLendSkipsHardLinks(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("changing owners needs root")
	}
	b, dir := newSandbox(t)
	outside := filepath.Join(t.TempDir(), "shadow")
	if err := os.WriteFile(outside, []byte("root only\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	planted := filepath.Join(dir, "sub", "planted")
	if err := os.MkdirAll(filepath.Dir(planted), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(outside, planted); err != nil {
		t.Fatal(err)
	}
	rootOwned := func(when string) {
		t.Helper()
		fi, err := os.Lstat(outside)
		if err != nil {
			t.Fatal(err)
		}
		if ownerOf(fi) != 0 {
			t.Fatalf("%s: the hard-linked file outside the worktree is owned by %d", when, ownerOf(fi))
		}
	}
	lent, err := lend([]string{dir}, DefaultUID, DefaultGID)
	if err != nil {
		t.Fatal(err)
	}
	rootOwned("while lent")
	if _, err := lent.restore(); err != nil {
		t.Fatal(err)
	}
	rootOwned("after restore")

	// Through a real run: the command may neither write the file nor
	// make it its own; its own new files come back to root without
	// set-ID bits, and the note names the planted link.
	res := run(t, b, Spec{Dir: dir, Argv: sh("echo x >> sub/planted; chmod 666 sub/planted; " +
		"echo y > mine; chmod 6755 mine; ln sub/planted again; ls -ln sub")})
	rootOwned("after a run")
	if got, _ := os.ReadFile(outside); string(got) != "root only\n" {
		t.Errorf("the sandbox wrote the hard-linked file: %q", got)
	}
	if !strings.Contains(res.Note, "hard links") || !strings.Contains(res.Note, planted) {
		t.Errorf("Note = %q, want it to name %s", res.Note, planted)
	}
	fi, err := os.Lstat(filepath.Join(dir, "mine"))
	if err != nil {
		t.Fatal(err)
	}
	if ownerOf(fi) != 0 || fi.Mode()&(os.ModeSetuid|os.ModeSetgid) != 0 {
		t.Errorf("a file the command made: owner %d, mode %v; want root and no set-ID bits", ownerOf(fi), fi.Mode())
	}
	if _, err := os.Lstat(filepath.Join(dir, "again")); err == nil {
		t.Error("the sandbox user hard-linked a root-owned file (fs.protected_hardlinks is off?)")
	}
}

// TestRestoreOnlyWhatWasLent: a root-owned file that appears under a lent
// directory while it is lent (not the sandbox user's) keeps its owner, and
// a file lent that belongs to another user goes back to that user.
func TestRestoreOnlyWhatWasLent(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("changing owners needs root")
	}
	dir := t.TempDir()
	other := filepath.Join(dir, "other")
	os.WriteFile(other, []byte("x"), 0o644)
	os.Chown(other, 1234, 1234)
	lent, err := lend([]string{dir}, DefaultUID, DefaultGID)
	if err != nil {
		t.Fatal(err)
	}
	foreign := filepath.Join(dir, "foreign")
	os.WriteFile(foreign, []byte("x"), 0o644)
	os.Chown(foreign, 4321, 4321)
	if _, err := lent.restore(); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]int{other: 1234, foreign: 4321, dir: 0} {
		fi, _ := os.Lstat(path)
		if ownerOf(fi) != want {
			t.Errorf("%s owned by %d after restore, want %d", path, ownerOf(fi), want)
		}
	}
}

// TestLendRefusesLinkOnTheWay: a directory reached through a symbolic
// link at any component (a worktree's harness made a link to a host
// directory, for dir: harness/go) is refused, naming the link, and the
// host directory's files keep their owner and set-user-ID bit, through
// lend and through a real run.
func TestLendRefusesLinkOnTheWay(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("changing owners needs root")
	}
	b, dir := newSandbox(t)
	host := filepath.Join(t.TempDir(), "host")
	if err := os.MkdirAll(filepath.Join(host, "go"), 0o755); err != nil {
		t.Fatal(err)
	}
	suid := filepath.Join(host, "go", "suid")
	if err := os.WriteFile(suid, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(suid, 0o755|os.ModeSetuid); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "harness")
	if err := os.Symlink(host, link); err != nil {
		t.Fatal(err)
	}
	unchanged := func(when string) {
		t.Helper()
		for _, p := range []string{filepath.Join(host, "go"), suid} {
			fi, err := os.Lstat(p)
			if err != nil {
				t.Fatal(err)
			}
			if ownerOf(fi) != 0 {
				t.Errorf("%s: %s is owned by %d", when, p, ownerOf(fi))
			}
		}
		if fi, _ := os.Lstat(suid); fi.Mode()&os.ModeSetuid == 0 {
			t.Errorf("%s: %s lost its set-user-ID bit", when, suid)
		}
	}
	for _, d := range []string{filepath.Join(link, "go"), link} {
		_, err := lend([]string{dir, d}, DefaultUID, DefaultGID)
		if err == nil || !strings.Contains(err.Error(), link+" ") || !strings.Contains(err.Error(), "symbolic link to "+host) {
			t.Errorf("lend(%s) = %v, want a refusal naming %s", d, err, link)
		}
		unchanged("after lend of " + d)
		if _, err := b.Run(t.Context(), Spec{Dir: d, Argv: sh("chmod 777 suid; echo x > suid")}); err == nil {
			t.Errorf("a command ran in %s", d)
		}
		unchanged("after a run in " + d)
	}
	// Refused before anything was lent: dir, listed first, is root's.
	if fi, _ := os.Lstat(dir); ownerOf(fi) != 0 {
		t.Errorf("%s is owned by %d after the refusals", dir, ownerOf(fi))
	}
}
