package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/perfbot/perfbot/sandbox"
)

// DiskBudgetError ends a job whose worktrees, private caches and temporary
// directories hold more than its disk budget.
type DiskBudgetError struct {
	Used, Budget int64
}

func (e *DiskBudgetError) Error() string {
	return fmt.Sprintf("the job's worktrees, build caches and temporary directories hold %s, more than its disk budget of %s (sandbox.disk in config.yaml)",
		formatSize(e.Used), formatSize(e.Budget))
}

// diskPoll is how often a running command's file systems are looked at.
const diskPoll = 500 * time.Millisecond

// diskBudget runs commands through Runner and counts, after each and while
// it runs, the disk the job's directories use: every worktree, working
// directory and writable directory a command got, but the trusted module
// cache. A command that takes the job past its budget is stopped and the
// job ends with a *DiskBudgetError.
//
// While a command runs it watches only the free space of the file systems
// holding those directories (one statfs each), and counts the directories
// themselves only when the space used since the command started could take
// the job past its budget; so measured rounds are not disturbed.
type diskBudget struct {
	sandbox.Runner
	budget int64
	// trusted is not the job's to count (the module cache).
	trusted string

	mu   sync.Mutex
	dirs []string
	// used is what the directories held after the last command.
	used int64
}

// Unwrap returns the Runner the budget wraps (sessions look through it).
func (d *diskBudget) Unwrap() sandbox.Runner { return d.Runner }

// add counts dirs as the job's from now on.
func (d *diskBudget) add(dirs ...string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, p := range dirs {
		if p == "" || p == d.trusted {
			continue
		}
		d.dirs = append(d.dirs, filepath.Clean(p))
	}
	d.dirs = outermost(d.dirs)
}

func (d *diskBudget) snapshot() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.dirs...)
}

// Run runs spec and checks the budget during and after it.
func (d *diskBudget) Run(ctx context.Context, spec sandbox.Spec) (*sandbox.Result, error) {
	d.add(spec.Dir)
	d.add(spec.Writable...)
	dirs := d.snapshot()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var over *DiskBudgetError
	done := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		over = d.watch(ctx, dirs, done, cancel)
	}()
	res, err := d.Runner.Run(ctx, spec)
	close(done)
	<-watched
	if over != nil {
		return res, over
	}
	if err != nil {
		return res, err
	}
	used, _ := diskUsage(dirs)
	d.mu.Lock()
	d.used = used
	d.mu.Unlock()
	if used > d.budget {
		return res, &DiskBudgetError{Used: used, Budget: d.budget}
	}
	return res, nil
}

// watch polls the free space under dirs until done and stops the command
// (cancel) when the job's directories grow past the budget.
func (d *diskBudget) watch(ctx context.Context, dirs []string, done <-chan struct{}, cancel func()) *DiskBudgetError {
	d.mu.Lock()
	base := d.used
	d.mu.Unlock()
	start := freeSpace(dirs)
	tick := time.NewTicker(diskPoll)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return nil
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		var grown int64
		for fs, free := range freeSpace(dirs) {
			if was, ok := start[fs]; ok && was > free {
				grown += was - free
			}
		}
		if base+grown <= d.budget {
			continue
		}
		used, _ := diskUsage(dirs)
		if used > d.budget {
			cancel()
			return &DiskBudgetError{Used: used, Budget: d.budget}
		}
		// Someone else wrote: start again from here.
		start, base = freeSpace(dirs), used
	}
}

// freeSpace returns the free bytes of the file system of each dir, by
// file system id.
func freeSpace(dirs []string) map[[2]int32]int64 {
	out := map[[2]int32]int64{}
	for _, d := range dirs {
		var st unix.Statfs_t
		if unix.Statfs(d, &st) == nil {
			out[st.Fsid.Val] = int64(st.Bfree) * st.Bsize
		}
	}
	return out
}

// outermost drops the paths that lie under another of paths.
func outermost(paths []string) []string {
	sort.Strings(paths)
	var out []string
	for _, p := range paths {
		if len(out) > 0 && within(p, out[len(out)-1]) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// diskUsage returns the disk space (allocated blocks) of the files under
// dirs, each file with several links counted once. It descends one
// directory at a time, relative to its parent, so no path length limits
// it, and follows no symbolic link. The error is the first entry it could
// not read; what it could read is counted.
func diskUsage(dirs []string) (int64, error) {
	seen := map[[2]uint64]bool{}
	var total int64
	var first error
	for _, d := range dirs {
		fd, err := unix.Open(d, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			if !os.IsNotExist(err) && first == nil {
				first = fmt.Errorf("%s: %w", d, err)
			}
			continue
		}
		var st unix.Stat_t
		if unix.Fstat(fd, &st) == nil {
			total += st.Blocks * 512
		}
		if err := usageAt(fd, d, seen, &total); err != nil && first == nil {
			first = err
		}
	}
	return total, first
}

// usageAt adds what lies under the directory fd (named name, for errors)
// to total and closes fd.
func usageAt(fd int, name string, seen map[[2]uint64]bool, total *int64) error {
	defer unix.Close(fd)
	names, err := dirNames(fd)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	var first error
	for _, n := range names {
		var st unix.Stat_t
		if err := unix.Fstatat(fd, n, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			continue
		}
		if st.Nlink > 1 && st.Mode&unix.S_IFMT != unix.S_IFDIR {
			key := [2]uint64{st.Dev, st.Ino}
			if seen[key] {
				continue
			}
			seen[key] = true
		}
		*total += st.Blocks * 512
		if st.Mode&unix.S_IFMT != unix.S_IFDIR {
			continue
		}
		child, err := openDirAt(fd, n)
		if err != nil {
			if first == nil {
				first = fmt.Errorf("%s/%s: %w", shorten(name), n, err)
			}
			continue
		}
		if err := usageAt(child, shorten(name)+"/"+n, seen, total); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// shorten keeps the name of a deep directory readable in an error.
func shorten(name string) string {
	if len(name) > 200 {
		return "..." + name[len(name)-120:]
	}
	return name
}

// openDirAt opens the directory name beneath the directory fd, following
// no symbolic link.
func openDirAt(fd int, name string) (int, error) {
	return unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
}

// dirNames lists the directory fd, leaving fd open and at its start.
func dirNames(fd int) ([]string, error) {
	dup, err := unix.Dup(fd)
	if err != nil {
		return nil, err
	}
	unix.CloseOnExec(dup)
	f := os.NewFile(uintptr(dup), "")
	defer f.Close()
	return f.Readdirnames(-1)
}

// formatSize writes n bytes with a binary unit.
func formatSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
