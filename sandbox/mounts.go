package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
)

// opKind is one kind of bwrap mount.
type opKind int

const (
	opTmpfs    opKind = iota // an empty tmpfs over a hidden directory
	opScratch                // a private tmpfs anyone may write (/tmp)
	opHideFile               // /dev/null over a hidden file
	opReadOnly               // a read-only bind of the same host path
	opWritable               // a writable bind of the same host path
)

// mountOp is one mount inside the sandbox.
type mountOp struct {
	kind opKind
	path string
}

// pathInfo is what mountPlan needs to know of a host path.
type pathInfo struct {
	exists, dir bool
	mode        fs.FileMode
	uid, gid    int
}

// statFunc describes a host path (os.Stat in production, a map in tests).
type statFunc func(path string) pathInfo

// hostStat is the statFunc of the real file system.
func hostStat(path string) pathInfo {
	fi, err := os.Stat(path)
	if err != nil {
		return pathInfo{}
	}
	pi := pathInfo{exists: true, dir: fi.IsDir(), mode: fi.Mode()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		pi.uid, pi.gid = int(st.Uid), int(st.Gid)
	}
	return pi
}

// mountPlan is the file system a sandboxed command sees, apart from the
// read-only root, /dev and /proc.
type mountPlan struct {
	// checkUID, checkGID: when checkUID >= 0, every directory on the way to
	// a bind that the command sees from the host must be searchable by that
	// user, else the command could not reach its own worktree.
	checkUID, checkGID int
	stat               statFunc
}

// args returns the bwrap mount arguments for spec with the given hidden
// paths.
func (p mountPlan) args(spec Spec, hidden []string) ([]string, error) {
	ops := []mountOp{{opScratch, "/tmp"}}
	for _, d := range []string{"/var/tmp", "/dev/shm"} {
		if p.stat(d).dir {
			ops = append(ops, mountOp{opScratch, d})
		}
	}
	for _, h := range hidden {
		h = filepath.Clean(h)
		if !filepath.IsAbs(h) || h == "/" {
			return nil, fmt.Errorf("sandbox: hidden path %q: want an absolute path other than /", h)
		}
		pi := p.stat(h)
		switch {
		case !pi.exists:
		case pi.dir:
			ops = append(ops, mountOp{opTmpfs, h})
		default:
			ops = append(ops, mountOp{opHideFile, h})
		}
	}
	add := func(kind opKind, what string, paths ...string) error {
		for _, path := range paths {
			if !filepath.IsAbs(path) {
				return fmt.Errorf("sandbox: %s path %q is not absolute", what, path)
			}
			if !p.stat(path).exists {
				return fmt.Errorf("sandbox: %s path %s does not exist", what, path)
			}
			ops = append(ops, mountOp{kind, filepath.Clean(path)})
		}
		return nil
	}
	if err := add(opReadOnly, "read-only", spec.ReadOnly...); err != nil {
		return nil, err
	}
	if err := add(opWritable, "working directory", spec.Dir); err != nil {
		return nil, err
	}
	if err := add(opWritable, "writable", spec.Writable...); err != nil {
		return nil, err
	}
	// Parents before children, so a bind inside a hidden directory or
	// inside the worktree lands on top.
	sort.SliceStable(ops, func(i, j int) bool { return depth(ops[i].path) < depth(ops[j].path) })

	var args []string
	made := map[string]bool{}
	for i, op := range ops {
		for _, anc := range ancestors(op.path) {
			enclosing := -1
			for j := 0; j < i; j++ {
				if within(anc, ops[j].path) && (enclosing < 0 || depth(ops[j].path) >= depth(ops[enclosing].path)) {
					enclosing = j
				}
			}
			switch {
			case enclosing >= 0 && ops[enclosing].path == anc:
				// a mount point itself
			case enclosing >= 0 && (ops[enclosing].kind == opTmpfs || ops[enclosing].kind == opScratch):
				// bwrap would create it private (0700) to root: open it up.
				if !made[anc] {
					made[anc] = true
					args = append(args, "--perms", "0755", "--dir", anc)
				}
			case enclosing < 0 && p.checkUID >= 0:
				if err := p.searchable(anc, op.path); err != nil {
					return nil, err
				}
			}
		}
		switch op.kind {
		case opTmpfs:
			args = append(args, "--perms", "0755", "--tmpfs", op.path)
		case opScratch:
			args = append(args, "--perms", "1777", "--tmpfs", op.path)
		case opHideFile:
			args = append(args, "--ro-bind", "/dev/null", op.path)
		case opReadOnly:
			args = append(args, "--ro-bind", op.path, op.path)
		case opWritable:
			args = append(args, "--bind", op.path, op.path)
		}
	}
	return args, nil
}

// searchable checks that the sandbox user may pass through host directory
// dir on the way to target.
func (p mountPlan) searchable(dir, target string) error {
	pi := p.stat(dir)
	if !pi.exists {
		return fmt.Errorf("sandbox: %s does not exist", dir)
	}
	m := pi.mode.Perm()
	ok := m&0o001 != 0 || (pi.uid == p.checkUID && m&0o100 != 0) || (pi.gid == p.checkGID && m&0o010 != 0)
	if !ok {
		return fmt.Errorf("sandbox: the sandbox user %d cannot reach %s: directory %s is mode %#o, owner %d; "+
			"keep worktrees and caches under directories others may search (chmod o+x %s), or list %s in the hidden paths",
			p.checkUID, target, dir, m, pi.uid, dir, dir)
	}
	return nil
}

// depth counts the components of a clean absolute path ("/" is 0).
func depth(path string) int {
	if path == "/" {
		return 0
	}
	return strings.Count(path, "/")
}

// ancestors lists the directories strictly between / and path, outermost
// first.
func ancestors(path string) []string {
	var out []string
	for dir := filepath.Dir(path); dir != "/" && dir != "."; dir = filepath.Dir(dir) {
		out = append([]string{dir}, out...)
	}
	return out
}

// within reports whether path is dir or lies under it.
func within(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, dir+"/")
}

// resolveHidden cleans the hidden paths, resolves symbolic links (so that
// /var/run/secrets hides /run/secrets) and drops duplicates.
func resolveHidden(paths []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range paths {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		} else if !errors.Is(err, fs.ErrNotExist) {
			p = filepath.Clean(p)
		}
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}
