package safefile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"

	"golang.org/x/sys/unix"
)

// linkRule is what an error says of a directory that is a symbolic link.
const linkRule = "perfbot follows no links in the tree"

// OpenDir opens the directory name beneath root (a slash path without
// ".."; "" or "." is root itself). It follows no symbolic link at any
// component of name and never leaves root; the error is an *Error naming
// the component that is a link, and its target. root itself is opened as
// given: it is perfbot's own directory (a worktree, a data directory, a
// cache, or "/" for a path that must hold no link at all).
func OpenDir(root, name string) (*os.File, error) {
	rootFD, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &Error{Name: name, Problem: fmt.Sprintf("cannot open its directory %s: %v", root, err), Err: err}
	}
	if len(components(name)) == 0 {
		return os.NewFile(uintptr(rootFD), root), nil
	}
	defer unix.Close(rootFD)
	if err := checkName(name); err != nil {
		return nil, err
	}
	fd, err := openBeneath(rootFD, name, unix.O_RDONLY|unix.O_DIRECTORY)
	if err != nil {
		return nil, describeAs(root, name, err, linkRule)
	}
	return os.NewFile(uintptr(fd), path.Join(root, name)), nil
}

// OpenAbsDir opens the absolute directory dir, refusing a symbolic link at
// any of its components: for directories perfbot hands over to another
// user, whose every component must be what it seems.
func OpenAbsDir(dir string) (*os.File, error) {
	if !path.IsAbs(dir) {
		return nil, &Error{Name: dir, Problem: "is not an absolute path"}
	}
	f, err := OpenDir("/", strings.TrimPrefix(path.Clean(dir), "/"))
	if se := (*Error)(nil); errors.As(err, &se) {
		return nil, &Error{Name: dir, Problem: se.Problem, Err: se.Err}
	}
	return f, err
}

// CheckDir checks that name (a slash path relative to root) is a
// directory beneath root reached through no symbolic link and no "..".
func CheckDir(root, name string) error {
	f, err := OpenDir(root, name)
	if err != nil {
		return err
	}
	return f.Close()
}

// Entry is one file Walk visits.
type Entry struct {
	// Path is the file's slash path relative to the directory walked
	// ("." for that directory itself).
	Path string
	// Stat is the file's own status (lstat: a link's, not its target's).
	Stat unix.Stat_t
	// parent is the descriptor of the directory holding the file and
	// name its name there; for the walked directory itself parent is -1
	// and self its descriptor.
	parent int
	name   string
	self   int
}

// IsDir reports whether the entry is a directory.
func (e *Entry) IsDir() bool { return e.Stat.Mode&unix.S_IFMT == unix.S_IFDIR }

// IsRegular reports whether the entry is a regular file.
func (e *Entry) IsRegular() bool { return e.Stat.Mode&unix.S_IFMT == unix.S_IFREG }

// Lchown changes the owner of the file itself, never of what a symbolic
// link points to.
func (e *Entry) Lchown(uid, gid int) error {
	if e.parent < 0 {
		return unix.Fchown(e.self, uid, gid)
	}
	return unix.Fchownat(e.parent, e.name, uid, gid, unix.AT_SYMLINK_NOFOLLOW)
}

// ChmodRegular sets the permission bits (and clears the set-ID bits) of
// the entry, a regular file: it is opened relative to its directory
// without following a link and changed only if it is still the file Walk
// saw.
func (e *Entry) ChmodRegular(perm uint32) error {
	if e.parent < 0 || !e.IsRegular() {
		return unix.EINVAL
	}
	fd, err := unix.Openat(e.parent, e.name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	if st.Dev != e.Stat.Dev || st.Ino != e.Stat.Ino || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return fmt.Errorf("%s was replaced", e.Path)
	}
	return unix.Fchmod(fd, perm)
}

// Walk calls fn for dir and every file beneath it, each directory before
// what it holds. It never follows a symbolic link and never leaves dir:
// each directory is opened relative to its parent's descriptor with
// O_NOFOLLOW, each file is looked at with fstatat(AT_SYMLINK_NOFOLLOW),
// and what an Entry changes it changes relative to its directory's
// descriptor, so a path renamed or replaced by a link meanwhile leads
// nowhere else. A file removed meanwhile is skipped. An error of fn ends
// the walk; a directory that cannot be read is skipped, and the first such
// error is returned once the walk is done.
func Walk(dir *os.File, fn func(e *Entry) error) error {
	root := &Entry{Path: ".", parent: -1, self: int(dir.Fd())}
	if err := unix.Fstat(root.self, &root.Stat); err != nil {
		return err
	}
	if err := fn(root); err != nil {
		return err
	}
	var first error
	err := walkDir(root.self, ".", fn, &first)
	if err != nil {
		return err
	}
	return first
}

// walkDir visits what the directory fd holds; rel is its path.
func walkDir(fd int, rel string, fn func(e *Entry) error, first *error) error {
	names, err := readNames(fd)
	if err != nil {
		if *first == nil {
			*first = fmt.Errorf("read %s: %w", rel, err)
		}
		return nil
	}
	for _, name := range names {
		e := &Entry{Path: path.Join(rel, name), parent: fd, name: name}
		if err := unix.Fstatat(fd, name, &e.Stat, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			if !errors.Is(err, unix.ENOENT) && *first == nil {
				*first = fmt.Errorf("stat %s: %w", e.Path, err)
			}
			continue
		}
		if err := fn(e); err != nil {
			return err
		}
		if !e.IsDir() {
			continue
		}
		sub, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			if !errors.Is(err, unix.ENOENT) && *first == nil {
				*first = fmt.Errorf("open %s: %w", e.Path, err)
			}
			continue
		}
		err = walkDir(sub, e.Path, fn, first)
		unix.Close(sub)
		if err != nil {
			return err
		}
	}
	return nil
}

// readNames lists the names in the directory fd, without "." and "..". It
// reads through a duplicate, so fd's own offset is left alone.
func readNames(fd int) ([]string, error) {
	dup, err := unix.Openat(fd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(dup), ".")
	defer f.Close()
	var names []string
	for {
		batch, err := f.Readdirnames(1024)
		names = append(names, batch...)
		if errors.Is(err, io.EOF) {
			return names, nil
		}
		if err != nil {
			return names, err
		}
	}
}
