package mail

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Maildir reads the patch mails, and the replies, a list delivers into a
// maildir. It only
// reads: files stay where they are, in new/ or cur/. Each file is read
// once, by its header alone (at most 64 KiB); a patch mail is read whole
// only when its series is complete and about to be queued. So a poll
// costs a listing of the folders and the headers of the files that came
// since the one before, whatever the maildir holds.
type Maildir struct {
	Dir string
	// MaxSize is the largest mail read (default DefaultMaxSize): a
	// larger file is skipped, with a log line naming it, unread.
	MaxSize int64
	Log     *slog.Logger
}

// Source returns the maildir as a Source: each call returns the patch
// mails and replies of the files it has not seen before, delivered since the given
// time (a first call reads the headers of every file since then).
func (d Maildir) Source() Source {
	r := &maildirReader{Maildir: d, seen: map[string]bool{}}
	return r.read
}

// maildirReader remembers the files read, by their unique name (the part
// before ":", which a reader moving the file from new/ to cur/ keeps).
type maildirReader struct {
	Maildir
	seen map[string]bool
}

type maildirFile struct {
	path, unique string
	mod          time.Time
	size         int64
}

func (r *maildirReader) read(ctx context.Context, since time.Time) ([]*Message, error) {
	log := r.Log
	if log == nil {
		log = slog.Default()
	}
	limit := r.MaxSize
	if limit <= 0 {
		limit = DefaultMaxSize
	}
	var files []maildirFile
	present := make(map[string]bool, len(r.seen))
	for _, sub := range []string{"new", "cur"} {
		entries, err := os.ReadDir(filepath.Join(r.Dir, sub))
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			return nil, fmt.Errorf("maildir %s: %w", r.Dir, err)
		}
		for _, e := range entries {
			if e.IsDir() || strings.HasPrefix(e.Name(), ".") {
				continue
			}
			unique, _, _ := strings.Cut(e.Name(), ":")
			if r.seen[unique] {
				present[unique] = true
				continue
			}
			info, err := e.Info()
			if err != nil {
				continue // moved between the listing and now: read next time
			}
			present[unique] = true
			if info.ModTime().Before(since) {
				continue
			}
			files = append(files, maildirFile{filepath.Join(r.Dir, sub, e.Name()), unique, info.ModTime(), info.Size()})
		}
	}
	// Forget the files that are gone, so that the set does not grow.
	r.seen = present
	sort.Slice(files, func(i, j int) bool { return files[i].mod.Before(files[j].mod) })
	var msgs []*Message
	var errs []error
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return msgs, err
		}
		r.seen[f.unique] = true
		if f.size > limit {
			log.Warn("mail skipped: larger than venues.mail.max_mail_size", "file", f.path, "size", f.size, "max", limit)
			continue
		}
		m, err := readHeader(f, limit)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if _, ok := ParseSubject(m.Subject); !ok && !m.IsReply() {
			continue // neither a patch nor a reply: never read again
		}
		m.Received = f.mod
		if m.Date.IsZero() {
			m.Date = f.mod
		}
		msgs = append(msgs, m)
	}
	return msgs, errors.Join(errs...)
}

// readHeader reads the header of a maildir file; its load reads the file
// whole again, from new/ or cur/, as long as it is no larger than limit.
func readHeader(f maildirFile, limit int64) (*Message, error) {
	fh, err := os.Open(f.path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	dir := filepath.Dir(filepath.Dir(f.path))
	load := func(ctx context.Context) ([]byte, error) { return readWhole(dir, f, limit) }
	return ParseHeader(fh, f.path, load)
}

// readWhole reads a maildir file whole, wherever it is now: a mail reader
// may have moved it from new/ to cur/ and changed its flags.
func readWhole(dir string, f maildirFile, limit int64) ([]byte, error) {
	path := f.path
	if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
		path = findUnique(dir, f.unique, path)
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("maildir: read %s again: %w", f.path, err)
	}
	defer fh.Close()
	raw, err := io.ReadAll(io.LimitReader(fh, limit+1))
	if err != nil {
		return nil, fmt.Errorf("maildir: read %s: %w", path, err)
	}
	if int64(len(raw)) > limit {
		return nil, fmt.Errorf("maildir: %s grew beyond venues.mail.max_mail_size (%d bytes)", path, limit)
	}
	return raw, nil
}

// findUnique is the file of a maildir whose unique name is unique, in
// cur/ or new/, else otherwise.
func findUnique(dir, unique, otherwise string) string {
	for _, sub := range []string{"cur", "new"} {
		entries, _ := os.ReadDir(filepath.Join(dir, sub))
		for _, e := range entries {
			if name := e.Name(); name == unique || strings.HasPrefix(name, unique+":") {
				return filepath.Join(dir, sub, name)
			}
		}
	}
	return otherwise
}
