package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/perfbot/perfbot/internal/safefile"
)

// fileID identifies a file and its owner when it was lent.
type fileID struct {
	dev, ino uint64
	uid, gid int
}

// lending is what lend changed, for restore to undo.
type lending struct {
	// dirs are the directories lent, held open: restore walks the very
	// directories lend walked, whatever their paths lead to by then.
	dirs     []*os.File
	uid, gid int
	// owners are the owners each of dirs had before.
	owners []fileID
	// lent maps each file lend gave away (its directory's index in dirs
	// and its path in it) to the file and owner it had.
	lent map[lentKey]fileID
	// skipped lists files left alone for having several hard links.
	skipped []string
}

// lentKey names a file lend gave away: its directory's index and its path
// relative to that directory.
type lentKey struct {
	dir  int
	path string
}

// lend makes the files under each of dirs owned by uid:gid, so that the
// sandbox user may write the worktree, and returns what it changed for
// restore. Each of dirs must be a real absolute path: a symbolic link at
// any of its components is refused (a patch may have made `harness` of
// a suite's `dir: harness/go` a link to a host directory). The walk
// under each works relative to directory descriptors and never follows a
// symbolic link (links are changed themselves), so it never leaves the
// directory, even if the tree changes meanwhile; it never changes a
// non-directory with more than one hard link: such a file may be a link
// to one outside the tree (a root-owned file planted by an earlier run),
// which must keep its owner.
func lend(dirs []string, uid, gid int) (*lending, error) {
	l := &lending{uid: uid, gid: gid, lent: map[lentKey]fileID{}}
	for _, d := range dirs {
		if err := lendable(d); err != nil {
			l.close()
			return nil, err
		}
		f, err := safefile.OpenAbsDir(d)
		if err != nil {
			l.close()
			return nil, fmt.Errorf("sandbox: refusing to lend %s to the sandbox user: %w", d, err)
		}
		var st unix.Stat_t
		if err := unix.Fstat(int(f.Fd()), &st); err != nil {
			f.Close()
			l.close()
			return nil, fmt.Errorf("sandbox: %s: %w", d, err)
		}
		l.dirs = append(l.dirs, f)
		l.owners = append(l.owners, statID(&st))
	}
	for i, d := range l.dirs {
		err := safefile.Walk(d, func(e *safefile.Entry) error {
			id := statID(&e.Stat)
			switch {
			case id.uid == uid && id.gid == gid:
				return nil
			case !e.IsDir() && e.Stat.Nlink > 1:
				l.skipped = append(l.skipped, filepath.Join(d.Name(), e.Path))
				return nil
			}
			if err := e.Lchown(uid, gid); err != nil {
				if errors.Is(err, unix.ENOENT) {
					return nil // removed meanwhile
				}
				return fmt.Errorf("sandbox: give %s to %d:%d: %w", filepath.Join(d.Name(), e.Path), uid, gid, err)
			}
			l.lent[lentKey{i, e.Path}] = id
			return nil
		})
		if err != nil {
			_, _ = l.restore()
			return nil, fmt.Errorf("sandbox: lend %s: %w", d.Name(), err)
		}
	}
	return l, nil
}

// close releases the directories l holds.
func (l *lending) close() {
	for _, d := range l.dirs {
		d.Close()
	}
	l.dirs = nil
}

// restore gives back what lend lent, and gives what the sandbox user
// created to the owner of the directory it lies in, clearing set-user-ID
// and set-group-ID bits so that nothing the command left can run with
// another user's rights. A file lent that was since replaced by another
// (a different inode at the same path) counts as created. Files owned by
// anyone else, and non-directories with several hard links, are left
// alone. It walks the directories lend opened, as lend did, and then
// releases them. It returns the files skipped for their hard links (at
// lend or now).
func (l *lending) restore() (skipped []string, err error) {
	defer l.close()
	skipped = append(skipped, l.skipped...)
	var first error
	for i, d := range l.dirs {
		root := l.owners[i]
		werr := safefile.Walk(d, func(e *safefile.Entry) error {
			id := statID(&e.Stat)
			name := filepath.Join(d.Name(), e.Path)
			if id.uid != l.uid {
				return nil // not the sandbox user's: never lent, or given back already
			}
			if !e.IsDir() && e.Stat.Nlink > 1 {
				skipped = append(skipped, name)
				return nil
			}
			to := root
			if was, ok := l.lent[lentKey{i, e.Path}]; ok && was.dev == id.dev && was.ino == id.ino {
				to = was
			}
			if err := e.Lchown(to.uid, to.gid); err != nil {
				if first == nil && !errors.Is(err, unix.ENOENT) {
					first = fmt.Errorf("sandbox: give %s back to %d:%d: %w", name, to.uid, to.gid, err)
				}
				return nil
			}
			// chown clears the set-ID bits of most files, not all (a
			// set-group-ID file without group execution keeps its bit):
			// clear them on regular files, opened without following a
			// link and checked to be the file seen.
			if e.IsRegular() && e.Stat.Mode&(unix.S_ISUID|unix.S_ISGID) != 0 {
				if err := e.ChmodRegular(e.Stat.Mode & 0o777); err != nil && first == nil {
					first = fmt.Errorf("sandbox: clear set-ID bits of %s: %w", name, err)
				}
			}
			return nil
		})
		if werr != nil && first == nil {
			first = fmt.Errorf("sandbox: give back %s: %w", d.Name(), werr)
		}
	}
	return skipped, first
}

// skippedNote says which files restore or lend left alone.
func skippedNote(skipped []string) string {
	if len(skipped) == 0 {
		return ""
	}
	shown := skipped
	if len(shown) > 3 {
		shown = shown[:3]
	}
	more := ""
	if len(skipped) > len(shown) {
		more = fmt.Sprintf(" and %d more", len(skipped)-len(shown))
	}
	return fmt.Sprintf("%d files with several hard links kept their owner (not lent to the sandbox user, nor given back): %s%s",
		len(skipped), strings.Join(shown, ", "), more)
}

func statID(st *unix.Stat_t) fileID {
	return fileID{dev: st.Dev, ino: st.Ino, uid: int(st.Uid), gid: int(st.Gid)}
}

// systemDirs are never lent to the sandbox user, nor anything under them.
var systemDirs = []string{"/bin", "/boot", "/dev", "/etc", "/lib", "/lib32", "/lib64", "/libx32", "/proc",
	"/sbin", "/sys", "/usr"}

// lendable refuses directories whose change of owner would damage the host:
// the root, a top-level directory, or a system directory.
func lendable(dir string) error {
	clean := filepath.Clean(dir)
	if !filepath.IsAbs(clean) || depth(clean) < 2 {
		return fmt.Errorf("sandbox: refusing to make %s writable for the sandbox: give each job its own directory, "+
			"at least two levels below /", dir)
	}
	for _, s := range systemDirs {
		if within(clean, s) {
			return fmt.Errorf("sandbox: refusing to make %s writable for the sandbox: it is a system directory", dir)
		}
	}
	return nil
}
