package sandbox

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// lend makes every file under each of dirs owned by uid:gid, so that the
// sandbox user may write the worktree, and returns a function that gives
// everything under them (including what the command created) back to the
// owner each directory had before. Symbolic links are changed themselves,
// never followed. Giving a file back to root clears its set-user-ID and
// set-group-ID bits, so nothing the command left can run with root's
// rights.
func lend(dirs []string, uid, gid int) (restore func() error, err error) {
	type owner struct{ uid, gid int }
	before := map[string]owner{}
	for _, d := range dirs {
		if err := lendable(d); err != nil {
			return nil, err
		}
		fi, err := os.Lstat(d)
		if err != nil {
			return nil, fmt.Errorf("sandbox: %w", err)
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			return nil, fmt.Errorf("sandbox: no owner for %s", d)
		}
		before[d] = owner{int(st.Uid), int(st.Gid)}
	}
	restore = func() error {
		var first error
		for _, d := range dirs {
			o := before[d]
			if err := chownTree(d, o.uid, o.gid); err != nil && first == nil {
				first = err
			}
		}
		return first
	}
	for _, d := range dirs {
		if err := chownTree(d, uid, gid); err != nil {
			_ = restore()
			return nil, err
		}
	}
	return restore, nil
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

// chownTree gives root and everything under it to uid:gid, skipping files
// already owned so.
func chownTree(root string, uid, gid int) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("sandbox: %w", err)
		}
		fi, err := d.Info()
		if err != nil {
			return nil // removed meanwhile
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) == uid && int(st.Gid) == gid {
			return nil
		}
		if err := os.Lchown(path, uid, gid); err != nil {
			return fmt.Errorf("sandbox: give %s to %d:%d: %w", path, uid, gid, err)
		}
		return nil
	})
}
