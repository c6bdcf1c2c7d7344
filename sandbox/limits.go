package sandbox

import (
	"bytes"
	"fmt"
	"syscall"
)

// limitHooks sets up the memory and process limits of spec: a cgroup where
// one can be made (under cgroupParent when given), else rlimits on the
// gated process before it runs. asRoot says the command itself runs as
// root, which RLIMIT_NPROC does not restrain.
func limitHooks(spec Spec, cgroupParent string, asRoot bool) *procHooks {
	h := &procHooks{}
	if spec.MemoryBytes <= 0 && spec.MaxProcs <= 0 {
		return h
	}
	cg := cgroupSystem{Parent: cgroupParent}.newCgroups(spec.MemoryBytes, spec.MaxProcs)
	memRlimit := spec.MemoryBytes > 0 && (cg == nil || cg.mem == nil)
	// RLIMIT_NPROC counts the processes of the real user and does not
	// apply to root: it only works because the command runs as the sandbox
	// user (or as perfbot's own unprivileged user).
	procRlimit := spec.MaxProcs > 0 && (cg == nil || cg.pids == nil)
	h.gated = true
	h.afterStart = func(pid int) error {
		if cg != nil {
			if err := cg.attach(pid); err != nil {
				return err
			}
		}
		if memRlimit {
			if err := setRlimit(pid, syscall.RLIMIT_AS, uint64(spec.MemoryBytes)); err != nil {
				return fmt.Errorf("RLIMIT_AS: %w", err)
			}
		}
		if procRlimit {
			if err := setRlimit(pid, rlimitNPROC, uint64(spec.MaxProcs)); err != nil {
				return fmt.Errorf("RLIMIT_NPROC: %w", err)
			}
		}
		return nil
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
			res.addNote(fmt.Sprintf("a process was killed at the %s memory limit", sizeString(spec.MemoryBytes)))
		case cg != nil && cg.pidsExhausted():
			res.Limit = LimitPids
			res.addNote(fmt.Sprintf("process creation failed at the limit of %d processes", spec.MaxProcs))
		case failed && memRlimit:
			res.addNote(fmt.Sprintf("memory was limited by RLIMIT_AS to %s (no cgroup available): the failure may be a lack of memory",
				sizeString(spec.MemoryBytes)))
		}
		switch {
		case procRlimit && asRoot:
			res.addNote(fmt.Sprintf("the limit of %d processes was not enforced: no cgroup available and RLIMIT_NPROC does not apply to root", spec.MaxProcs))
		case procRlimit && (failed || forkFailed(res.Stderr)):
			res.addNote(fmt.Sprintf("processes were limited by RLIMIT_NPROC to %d for the whole user (no cgroup available)", spec.MaxProcs))
		}
	}
	return h
}

// forkFailed reports whether stderr shows a failed fork, the only sign an
// rlimit leaves.
func forkFailed(stderr []byte) bool {
	return bytes.Contains(stderr, []byte("Cannot fork")) || bytes.Contains(stderr, []byte("fork: Resource temporarily unavailable")) ||
		bytes.Contains(stderr, []byte("fork: retry"))
}
