package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// prepareSQLiteFile makes the SQLite file at dsn private before SQLite
// opens it: the directories it creates are 0700, the file is created 0600
// (SQLite gives its -wal and -shm files the database file's mode), and an
// existing file, -wal or -shm readable by others is narrowed to its owner.
// The history holds patches, results and the answers posted; nobody but
// perfbot needs to read it.
func prepareSQLiteFile(dsn string) error {
	path := dsn
	if rest, ok := strings.CutPrefix(dsn, "file:"); ok {
		path, _, _ = strings.Cut(rest, "?")
	}
	if path == "" || path == ":memory:" || strings.Contains(dsn, "mode=memory") {
		return nil
	}
	if dir := filepath.Dir(path); dir != "" {
		if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
			if err := os.MkdirAll(dir, 0o700); err != nil {
				return fmt.Errorf("store directory: %w", err)
			}
		}
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("store file: %w", err)
	}
	f.Close()
	for _, p := range []string{path, path + "-wal", path + "-shm", path + "-journal"} {
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o077 == 0 {
			continue
		}
		if err := os.Chmod(p, fi.Mode().Perm()&0o700); err != nil {
			return fmt.Errorf("store file: narrow %s to its owner: %w", p, err)
		}
	}
	return nil
}
