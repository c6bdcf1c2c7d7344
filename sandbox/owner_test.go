package sandbox

import (
	"os"
	"path/filepath"
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
	restore, err := lend([]string{dir}, 65534, 65534)
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
	if err := restore(); err != nil {
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
