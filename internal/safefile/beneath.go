package safefile

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// openBeneath opens name relative to the directory rootFD with flags, never
// following a symbolic link and never leaving the directory. It uses
// openat2 with RESOLVE_BENEATH and RESOLVE_NO_SYMLINKS (Linux 5.6), and on
// older kernels (or where a seccomp filter refuses openat2) walks the path
// one component at a time with O_NOFOLLOW.
func openBeneath(rootFD int, name string, flags int) (int, error) {
	how := &unix.OpenHow{
		Flags:   uint64(flags | unix.O_NOFOLLOW | unix.O_CLOEXEC),
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	}
	for range 8 {
		fd, err := unix.Openat2(rootFD, name, how)
		switch {
		case err == nil:
			return fd, nil
		case errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EINTR):
			// A rename raced the lookup: try again.
			continue
		case errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM):
			return walk(rootFD, name, flags)
		default:
			return -1, err
		}
	}
	return walk(rootFD, name, flags)
}

// walk opens name one component at a time: every directory on the way with
// O_DIRECTORY|O_NOFOLLOW, the last with O_NOFOLLOW. A symbolic link
// anywhere fails with ELOOP or ENOTDIR.
func walk(rootFD int, name string, flags int) (int, error) {
	parts := components(name)
	if len(parts) == 0 {
		return -1, unix.EINVAL
	}
	dirFD, err := unix.Dup(rootFD)
	if err != nil {
		return -1, err
	}
	for _, c := range parts[:len(parts)-1] {
		next, err := unix.Openat(dirFD, c, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		unix.Close(dirFD)
		if err != nil {
			return -1, err
		}
		dirFD = next
	}
	defer unix.Close(dirFD)
	return unix.Openat(dirFD, parts[len(parts)-1], flags|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
}

// components splits a slash path, dropping empty and "." components.
func components(name string) []string {
	var out []string
	for _, c := range strings.Split(name, "/") {
		if c != "" && c != "." {
			out = append(out, c)
		}
	}
	return out
}

// WriteFile writes data to name (a slash path relative to root, without
// "..") as a new file with mode perm, creating the directories on the way.
// It follows no symbolic link: a link on the way is refused, and whatever
// is at name (a file or a link) is removed first, so the file is always
// created anew (O_CREAT|O_EXCL|O_NOFOLLOW). A directory at name is
// refused.
func WriteFile(root, name string, data []byte, perm os.FileMode) error {
	if err := checkName(name); err != nil {
		return err
	}
	parts := components(name)
	dirFD, err := mkdirs(root, name, parts[:len(parts)-1])
	if err != nil {
		return err
	}
	defer unix.Close(dirFD)
	last := parts[len(parts)-1]
	if err := unix.Unlinkat(dirFD, last, 0); err != nil && !errors.Is(err, unix.ENOENT) {
		return &Error{Name: name, Problem: fmt.Sprintf("cannot replace what is there: %v", err), Err: err}
	}
	fd, err := unix.Openat(dirFD, last, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm.Perm()))
	if err != nil {
		return &Error{Name: name, Problem: fmt.Sprintf("cannot create: %v", err), Err: err}
	}
	f := os.NewFile(uintptr(fd), name)
	if _, err := f.Write(data); err != nil {
		f.Close()
		return &Error{Name: name, Problem: fmt.Sprintf("write: %v", err), Err: err}
	}
	if err := f.Close(); err != nil {
		return &Error{Name: name, Problem: fmt.Sprintf("write: %v", err), Err: err}
	}
	return nil
}

// mkdirs opens root and creates and opens each of dirs in turn beneath
// it with mkdirat and O_NOFOLLOW, and returns the last one's descriptor.
// A symbolic link on the way is refused; name is for the error.
func mkdirs(root, name string, dirs []string) (int, error) {
	dirFD, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, &Error{Name: name, Problem: fmt.Sprintf("cannot open its directory %s: %v", root, err), Err: err}
	}
	for _, c := range dirs {
		if err := unix.Mkdirat(dirFD, c, 0o755); err != nil && !errors.Is(err, unix.EEXIST) {
			unix.Close(dirFD)
			return -1, &Error{Name: name, Problem: fmt.Sprintf("cannot create directory %s: %v", c, err), Err: err}
		}
		next, err := unix.Openat(dirFD, c, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		unix.Close(dirFD)
		if err != nil {
			return -1, describeAs(root, name, err, linkRule)
		}
		dirFD = next
	}
	return dirFD, nil
}

// MkdirAll creates the directory name (a slash path relative to root,
// without "..") and those on the way, mode 0755 before the umask, following
// no symbolic link: a link at any component is refused, naming it.
func MkdirAll(root, name string) error {
	if err := checkName(name); err != nil {
		return err
	}
	fd, err := mkdirs(root, name, components(name))
	if err != nil {
		return err
	}
	return unix.Close(fd)
}

// Remove removes the file name (a slash path relative to root, without
// "..") if it is there. It follows no symbolic link on the way; a link at
// name is removed itself, not its target. A directory at name is refused.
func Remove(root, name string) error {
	if err := checkName(name); err != nil {
		return err
	}
	parts := components(name)
	rootFD, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return &Error{Name: name, Problem: fmt.Sprintf("cannot open its directory %s: %v", root, err), Err: err}
	}
	defer unix.Close(rootFD)
	dirFD := rootFD
	if len(parts) > 1 {
		dirFD, err = openBeneath(rootFD, strings.Join(parts[:len(parts)-1], "/"), unix.O_RDONLY|unix.O_DIRECTORY)
		if errors.Is(err, unix.ENOENT) {
			return nil
		}
		if err != nil {
			return describe(root, name, err)
		}
		defer unix.Close(dirFD)
	}
	if err := unix.Unlinkat(dirFD, parts[len(parts)-1], 0); err != nil && !errors.Is(err, unix.ENOENT) {
		return &Error{Name: name, Problem: fmt.Sprintf("cannot remove: %v", err), Err: err}
	}
	return nil
}
