package sandbox

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// fileID identifies a file and its owner when it was lent.
type fileID struct {
	dev, ino uint64
	uid, gid int
}

// lending is what lend changed, for restore to undo.
type lending struct {
	dirs     []string
	uid, gid int
	// owners are the owners each of dirs had before.
	owners map[string]fileID
	// lent maps each path lend gave away to the file and owner it had.
	lent map[string]fileID
	// skipped lists files left alone for having several hard links.
	skipped []string
}

// lend makes the files under each of dirs owned by uid:gid, so that the
// sandbox user may write the worktree, and returns what it changed for
// restore. It never follows a symbolic link (links are changed
// themselves) and never changes a non-directory with more than one hard
// link: such a file may be a link to one outside the tree (a root-owned
// file planted by an earlier run), which must keep its owner.
func lend(dirs []string, uid, gid int) (*lending, error) {
	l := &lending{dirs: dirs, uid: uid, gid: gid, owners: map[string]fileID{}, lent: map[string]fileID{}}
	for _, d := range dirs {
		if err := lendable(d); err != nil {
			return nil, err
		}
		fi, err := os.Lstat(d)
		if err != nil {
			return nil, fmt.Errorf("sandbox: %w", err)
		}
		if !fi.IsDir() {
			return nil, fmt.Errorf("sandbox: %s is not a directory (a symbolic link?): refusing to lend it", d)
		}
		l.owners[d] = idOf(fi)
	}
	for _, d := range dirs {
		err := filepath.WalkDir(d, func(path string, e fs.DirEntry, err error) error {
			if err != nil {
				return fmt.Errorf("sandbox: %w", err)
			}
			fi, err := e.Info()
			if err != nil {
				return nil // removed meanwhile
			}
			id := idOf(fi)
			switch {
			case id.uid == uid && id.gid == gid:
				return nil
			case !fi.IsDir() && links(fi) > 1:
				l.skipped = append(l.skipped, path)
				return nil
			}
			if err := os.Lchown(path, uid, gid); err != nil {
				return fmt.Errorf("sandbox: give %s to %d:%d: %w", path, uid, gid, err)
			}
			l.lent[path] = id
			return nil
		})
		if err != nil {
			_, _ = l.restore()
			return nil, err
		}
	}
	return l, nil
}

// restore gives back what lend lent, and gives what the sandbox user
// created to the owner of the directory it lies in, clearing set-user-ID
// and set-group-ID bits so that nothing the command left can run with
// another user's rights. A file lent that was since replaced by another
// (a different inode at the same path) counts as created. Files owned by
// anyone else, and non-directories with several hard links, are left
// alone. It returns the files skipped for their hard links (at lend or
// now).
func (l *lending) restore() (skipped []string, err error) {
	skipped = append(skipped, l.skipped...)
	var first error
	for _, d := range l.dirs {
		root := l.owners[d]
		werr := filepath.WalkDir(d, func(path string, e fs.DirEntry, err error) error {
			if err != nil {
				if first == nil {
					first = fmt.Errorf("sandbox: %w", err)
				}
				return nil
			}
			fi, err := e.Info()
			if err != nil {
				return nil
			}
			id := idOf(fi)
			if id.uid != l.uid {
				return nil // not the sandbox user's: never lent, or given back already
			}
			if !fi.IsDir() && links(fi) > 1 {
				skipped = append(skipped, path)
				return nil
			}
			to := root
			if was, ok := l.lent[path]; ok && was.dev == id.dev && was.ino == id.ino {
				to = was
			}
			if err := os.Lchown(path, to.uid, to.gid); err != nil {
				if first == nil {
					first = fmt.Errorf("sandbox: give %s back to %d:%d: %w", path, to.uid, to.gid, err)
				}
				return nil
			}
			// chown clears the set-ID bits of most files, not all (a
			// set-group-ID file without group execution keeps its bit):
			// clear them on regular files, which no process can swap
			// for a link now that the command has ended.
			if fi.Mode().IsRegular() && fi.Mode()&(fs.ModeSetuid|fs.ModeSetgid) != 0 {
				if err := os.Chmod(path, fi.Mode().Perm()); err != nil && first == nil {
					first = fmt.Errorf("sandbox: clear set-ID bits of %s: %w", path, err)
				}
			}
			return nil
		})
		if werr != nil && first == nil {
			first = werr
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

func idOf(fi fs.FileInfo) fileID {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{uid: -1, gid: -1}
	}
	return fileID{dev: st.Dev, ino: st.Ino, uid: int(st.Uid), gid: int(st.Gid)}
}

func links(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Nlink
	}
	return 1
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
