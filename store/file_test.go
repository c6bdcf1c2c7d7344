package store

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestSQLiteFileMode: under the usual umask 022 the store's file, its -wal
// and -shm files are created 0600 and the directories it creates 0700; an
// existing file readable by others is narrowed to its owner.
func TestSQLiteFileMode(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	root := t.TempDir()
	path := filepath.Join(root, "state", "perfbot", "perfbot.db")
	ctx := context.Background()
	s, err := Open(ctx, SQLite, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.SeeDelivery(ctx, "mode-test"); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v, want 0600", filepath.Base(p), fi.Mode().Perm())
		}
	}
	for _, d := range []string{filepath.Join(root, "state"), filepath.Dir(path)} {
		if fi, err := os.Stat(d); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("directory %s: %v, %v; want mode 0700", d, fi.Mode().Perm(), err)
		}
	}
	s.Close()

	// A store left readable by an older perfbot is narrowed on open.
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err = Open(ctx, SQLite, "file:"+path+"?_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("existing 0644 store reopened: mode %v, want 0600", fi.Mode().Perm())
	}
}
