package sandbox

import (
	"bytes"
	"fmt"
	"sync/atomic"
	"syscall"
	"time"
)

// NoCgroups, as a CgroupParent, keeps commands out of cgroups: every
// limit then rests on rlimits (the fallback of hosts without a usable
// cgroup).
const NoCgroups = "none"

// limitPoll is how often a running command's cgroup events are read to
// stop it at a limit; without cgroups, its processes and their memory are
// counted every countEvery polls.
const (
	limitPoll  = 200 * time.Millisecond
	countEvery = 2
)

// limitHooks sets up the memory, process and file-size limits of spec: a
// cgroup where one can be made (under cgroupParent when given; none with
// NoCgroups), else rlimits on the gated process before it runs. The
// command's processes run as uid; asRoot says that is root, which
// RLIMIT_NPROC does not restrain.
func limitHooks(spec Spec, cgroupParent string, uid int, asRoot bool) *procHooks {
	h := &procHooks{}
	if spec.MemoryBytes <= 0 && spec.MaxProcs <= 0 && spec.MaxFileSize <= 0 {
		return h
	}
	var cg *cgroups
	if cgroupParent != NoCgroups {
		cg = cgroupSystem{Parent: cgroupParent}.newCgroups(spec.MemoryBytes, spec.MaxProcs)
	}
	memRlimit := spec.MemoryBytes > 0 && (cg == nil || cg.mem == nil)
	// RLIMIT_NPROC counts the processes of the real user and does not
	// apply to root: it only works because the command runs as the sandbox
	// user (or as perfbot's own unprivileged user).
	procRlimit := spec.MaxProcs > 0 && (cg == nil || cg.pids == nil)
	// Without cgroups: the command's own count reached MaxProcs, or its
	// resident memory MemoryBytes.
	var treeFull, memFull bool
	// forkRefused: the command said a fork failed (a shell's "Cannot
	// fork"), the only sign RLIMIT_NPROC leaves while it runs.
	var forkRefused atomic.Bool
	if procRlimit {
		h.watchStderr = func(p []byte) {
			if !forkRefused.Load() && forkFailed(p) {
				forkRefused.Store(true)
			}
		}
	}
	h.gated = true
	h.afterStart = applyLimits(cg, spec, memRlimit, procRlimit)
	// A command stops at its memory or process limit, not at its timeout:
	// with oom.group (v2) the kernel ends the whole tree itself; a v1 OOM
	// kill, a fork refused at pids.max, or (without cgroups) a tree that
	// reached MaxProcs or MemoryBytes ends it here.
	watchMem := cg != nil && cg.mem != nil
	watchPids := cg != nil && cg.pids != nil
	if watchMem || watchPids || memRlimit || procRlimit {
		polls := 0
		h.limitHit = func(pid int) bool {
			polls++
			switch {
			case watchMem && cg.oomKilled(), watchPids && cg.pidsExhausted():
				return true
			case procRlimit && forkRefused.Load():
				treeFull = true
				return true
			case !(memRlimit || procRlimit) || polls%countEvery != 0:
				// Reading all of /proc is dearer than reading a cgroup's
				// events: count every countEvery polls only.
				return false
			}
			c := countProcs(pid, uid)
			if memRlimit && c.rss >= spec.MemoryBytes {
				memFull = true
				return true
			}
			// RLIMIT_NPROC counts the user's processes on the whole host:
			// the command is at its limit when they reach it while it holds
			// a good part of them itself. Root is not held by RLIMIT_NPROC:
			// counting is its only limit.
			if procRlimit && (c.tree >= spec.MaxProcs || (!asRoot && c.user >= spec.MaxProcs && c.tree >= max(2, spec.MaxProcs/2))) {
				treeFull = true
				return true
			}
			return false
		}
	}
	if cg != nil {
		h.kill = cg.kill
	}
	h.finish = func(res *Result) {
		if cg != nil {
			defer cg.remove()
			cg.kill()
		}
		failed := res.ExitCode != 0 || res.Limit == LimitTimeout
		switch {
		case cg != nil && cg.oomKilled():
			res.Limit = LimitMemory
			res.addNote(fmt.Sprintf("stopped by the memory limit (%s): a process was killed for memory", sizeString(spec.MemoryBytes)))
		case cg != nil && cg.pidsExhausted():
			res.Limit = LimitPids
			res.addNote(fmt.Sprintf("stopped by the process limit (%d): a fork failed at pids.max", spec.MaxProcs))
		case treeFull || (procRlimit && failed && forkRefused.Load()):
			res.Limit = LimitPids
			res.addNote(fmt.Sprintf("stopped by the process limit (%d, RLIMIT_NPROC: no cgroup available)", spec.MaxProcs))
		case failed && spec.MaxFileSize > 0 && fileTooLarge(res):
			res.Limit = LimitFileSize
			res.addNote(fmt.Sprintf("stopped by the file-size limit (%s): a write past it got SIGXFSZ", sizeString(spec.MaxFileSize)))
		case memFull:
			res.Limit = LimitMemory
			res.addNote(fmt.Sprintf("stopped by the memory limit (%s, no cgroup available): its processes' resident memory reached it",
				sizeString(spec.MemoryBytes)))
		case failed && memRlimit && outOfMemory(res.Stderr):
			res.Limit = LimitMemory
			res.addNote(fmt.Sprintf("stopped by the memory limit (%s, RLIMIT_DATA: no cgroup available): an allocation failed",
				sizeString(spec.MemoryBytes)))
		case failed && memRlimit:
			res.addNote(fmt.Sprintf("memory was limited to %s by counting and RLIMIT_DATA (no cgroup available): the failure may be a lack of memory",
				sizeString(spec.MemoryBytes)))
		}
		if procRlimit && asRoot {
			res.addNote(fmt.Sprintf("the limit of %d processes was enforced only by counting (no cgroup available, and RLIMIT_NPROC does not apply to root)", spec.MaxProcs))
		}
	}
	return h
}

// sigxfsz is the exit status a shell or bwrap reports for a process ended
// by SIGXFSZ (128 + 25).
const sigxfsz = 128 + int(syscall.SIGXFSZ)

// fileTooLarge reports whether a command shows the sign of RLIMIT_FSIZE:
// death by SIGXFSZ, or EFBIG where the signal is ignored (as Go programs
// do).
func fileTooLarge(res *Result) bool {
	return res.ExitCode == sigxfsz || bytes.Contains(res.Stderr, []byte("file too large")) ||
		bytes.Contains(res.Stderr, []byte("File too large"))
}

// outOfMemory reports whether stderr shows a failed allocation, the only
// sign RLIMIT_DATA leaves.
func outOfMemory(stderr []byte) bool {
	for _, s := range []string{"out of memory", "Cannot allocate memory", "cannot allocate memory", "MemoryError", "runtime.sysMap(",
		"std::bad_alloc", "OutOfMemoryError"} {
		if bytes.Contains(stderr, []byte(s)) {
			return true
		}
	}
	return false
}

// forkFailed reports whether stderr shows a failed fork, the only sign an
// rlimit leaves.
func forkFailed(stderr []byte) bool {
	return bytes.Contains(stderr, []byte("Cannot fork")) || bytes.Contains(stderr, []byte("fork: Resource temporarily unavailable")) ||
		bytes.Contains(stderr, []byte("fork: retry"))
}

// applyLimits returns the hook that puts a started, gated command into its
// cgroup (when it has one) and sets the rlimits that stand in for what the
// cgroup lacks, plus the file-size limit, which only an rlimit sets.
func applyLimits(cg *cgroups, spec Spec, memRlimit, procRlimit bool) func(pid int) error {
	return func(pid int) error {
		if cg != nil {
			if err := cg.attach(pid); err != nil {
				return err
			}
		}
		if memRlimit {
			if err := setRlimit(pid, syscall.RLIMIT_DATA, uint64(spec.MemoryBytes)); err != nil {
				return fmt.Errorf("RLIMIT_DATA: %w", err)
			}
		}
		if procRlimit {
			if err := setRlimit(pid, rlimitNPROC, uint64(spec.MaxProcs)); err != nil {
				return fmt.Errorf("RLIMIT_NPROC: %w", err)
			}
		}
		if spec.MaxFileSize > 0 {
			if err := setRlimit(pid, syscall.RLIMIT_FSIZE, uint64(spec.MaxFileSize)); err != nil {
				return fmt.Errorf("RLIMIT_FSIZE: %w", err)
			}
		}
		return nil
	}
}
