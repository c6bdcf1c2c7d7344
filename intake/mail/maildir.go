package mail

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// ReadMaildir reads the mails of a maildir (its new and cur folders)
// delivered since the given time, oldest first. Unreadable mails are
// reported together and skipped.
func ReadMaildir(dir string, since time.Time) ([]*Message, error) {
	type file struct {
		path string
		mod  time.Time
	}
	var files []file
	for _, sub := range []string{"new", "cur"} {
		entries, err := os.ReadDir(filepath.Join(dir, sub))
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			return nil, fmt.Errorf("maildir %s: %w", dir, err)
		}
		for _, e := range entries {
			if e.IsDir() {
				continue
			}
			info, err := e.Info()
			if err != nil || info.ModTime().Before(since) {
				continue
			}
			files = append(files, file{filepath.Join(dir, sub, e.Name()), info.ModTime()})
		}
	}
	sort.Slice(files, func(i, j int) bool { return files[i].mod.Before(files[j].mod) })
	var msgs []*Message
	var errs []error
	for _, f := range files {
		raw, err := os.ReadFile(f.path)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		m, err := ParseMessage(raw, f.path)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if m.Date.IsZero() {
			m.Date = f.mod
		}
		msgs = append(msgs, m)
	}
	return msgs, errors.Join(errs...)
}
