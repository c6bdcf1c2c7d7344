// Package safefile reads and writes files inside a directory that untrusted
// code could have changed (a worktree a benchmark ran in, a scratch
// directory lent to the sandbox) without being led outside it: no symbolic
// link is followed, neither as the last component nor as a directory on the
// way, only regular files with a single link are read, and every read is
// bounded.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Limits on what perfbot reads of one file, per kind of file.
const (
	// MaxResult bounds a result file a benchmark writes (output: file:,
	// perf stat's counters, a CPU profile).
	MaxResult = 64 << 20
	// MaxSource bounds a source file perfbot looks into or copies, such
	// as a Go test file a patch adds (generated test tables run to a few
	// hundred KiB).
	MaxSource = 4 << 20
	// MaxGitFile bounds a worktree's .git file.
	MaxGitFile = 4 << 10
)

// Error is a file perfbot refused to read or write, and why.
type Error struct {
	// Name is the file as the caller named it, relative to the root.
	Name string
	// Problem says what was wrong: "is a symbolic link to /dev/zero".
	Problem string
	// Err is the underlying error, if any.
	Err error
}

func (e *Error) Error() string {
	return e.Name + ": " + e.Problem
}

func (e *Error) Unwrap() error { return e.Err }

// ErrTooLarge is wrapped by the Error of a file larger than the limit.
var ErrTooLarge = errors.New("file too large")

// ErrNotRegular is wrapped by the Error of a symbolic link, directory,
// device or other file that is not a regular file with one link.
var ErrNotRegular = errors.New("not a regular file")

// ReadFile reads the file name (a slash-separated path relative to root,
// without "..") and returns its content. It refuses a name that leaves
// root, a symbolic link anywhere on the way, anything but a regular file
// with one link, and a file larger than limit bytes; the error is an
// *Error naming the file and what was wrong.
func ReadFile(root, name string, limit int64) ([]byte, error) {
	f, err := Open(root, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, &Error{Name: name, Problem: err.Error(), Err: err}
	}
	if fi.Size() > limit {
		return nil, &Error{Name: name, Problem: fmt.Sprintf("is %s, more than the %s perfbot reads of such a file", size(fi.Size()), size(limit)), Err: ErrTooLarge}
	}
	// The file may grow while it is read: read one byte past the limit
	// to tell.
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, &Error{Name: name, Problem: err.Error(), Err: err}
	}
	if int64(len(data)) > limit {
		return nil, &Error{Name: name, Problem: fmt.Sprintf("grew past the %s perfbot reads of such a file while it was read", size(limit)), Err: ErrTooLarge}
	}
	return data, nil
}

// Open opens the regular file name beneath root for reading, with the
// checks of ReadFile but no size limit.
func Open(root, name string) (*os.File, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	rootFD, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &Error{Name: name, Problem: fmt.Sprintf("cannot open its directory %s: %v", root, err), Err: err}
	}
	defer unix.Close(rootFD)
	fd, err := openBeneath(rootFD, name, unix.O_RDONLY|unix.O_NONBLOCK)
	if err != nil {
		return nil, describe(root, name, err)
	}
	f := os.NewFile(uintptr(fd), path.Join(root, name))
	if err := regular(f, name); err != nil {
		f.Close()
		return nil, err
	}
	// O_NONBLOCK kept a FIFO from blocking the open; a regular file
	// ignores it, but clear it all the same.
	_ = unix.SetNonblock(fd, false)
	return f, nil
}

// regular refuses an open file that is not a regular file with one link.
func regular(f *os.File, name string) error {
	fi, err := f.Stat()
	if err != nil {
		return &Error{Name: name, Problem: err.Error(), Err: err}
	}
	if !fi.Mode().IsRegular() {
		return &Error{Name: name, Problem: fmt.Sprintf("is a %s; perfbot reads only regular files", kind(fi.Mode())), Err: ErrNotRegular}
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Nlink > 1 {
		return &Error{Name: name, Problem: fmt.Sprintf("has %d hard links; perfbot reads only files with one", st.Nlink), Err: ErrNotRegular}
	}
	return nil
}

// checkName refuses names that are empty, absolute or climb with "..".
func checkName(name string) error {
	switch {
	case name == "" || name == ".":
		return &Error{Name: name, Problem: "is empty; a file name was expected"}
	case strings.HasPrefix(name, "/"):
		return &Error{Name: name, Problem: "is an absolute path; perfbot reads and writes only paths inside the tree"}
	case strings.ContainsRune(name, 0):
		return &Error{Name: name, Problem: "contains a NUL byte"}
	}
	for _, c := range strings.Split(name, "/") {
		if c == ".." {
			return &Error{Name: name, Problem: "climbs out of the tree with \"..\""}
		}
	}
	return nil
}

// describe turns a failed open of a file into an *Error that says which
// component was a symbolic link, and to what.
func describe(root, name string, err error) error {
	return describeAs(root, name, err, "perfbot reads only regular files a patch adds")
}

// describeAs is describe with what to say when name itself is a symbolic
// link.
func describeAs(root, name string, err error, linkRule string) error {
	if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.EXDEV) || errors.Is(err, unix.ENOTDIR) {
		p := root
		for _, c := range strings.Split(name, "/") {
			if c == "" || c == "." {
				continue
			}
			p = path.Join(p, c)
			fi, lerr := os.Lstat(p)
			if lerr != nil || fi.Mode()&os.ModeSymlink == 0 {
				continue
			}
			target, _ := os.Readlink(p)
			rel := strings.TrimPrefix(strings.TrimPrefix(p, root), "/")
			if rel == strings.TrimPrefix(path.Clean(name), "./") {
				return &Error{Name: name, Problem: fmt.Sprintf("is a symbolic link to %s; %s", target, linkRule), Err: ErrNotRegular}
			}
			if root == "/" {
				rel = p // an absolute path names its components absolutely
			}
			return &Error{Name: name, Problem: fmt.Sprintf("%s on its way is a symbolic link to %s; perfbot follows no links in the tree", rel, target), Err: ErrNotRegular}
		}
	}
	if errors.Is(err, unix.ENOENT) {
		return &Error{Name: name, Problem: "does not exist", Err: os.ErrNotExist}
	}
	return &Error{Name: name, Problem: err.Error(), Err: err}
}

func kind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "directory"
	case m&os.ModeSymlink != 0:
		return "symbolic link"
	case m&os.ModeNamedPipe != 0:
		return "named pipe"
	case m&os.ModeSocket != 0:
		return "socket"
	case m&os.ModeCharDevice != 0:
		return "character device"
	case m&os.ModeDevice != 0:
		return "block device"
	}
	return "special file"
}

// size writes n bytes in the largest binary unit that divides it evenly
// enough to read well.
func size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
