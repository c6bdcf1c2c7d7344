// Package fds keeps the descriptors perfbot inherits from its caller out
// of the commands it starts.
package fds

import (
	"fmt"
	"math"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// closeRangeCloexec is CLOSE_RANGE_CLOEXEC of close_range(2) (Linux 5.11).
const closeRangeCloexec = 1 << 2

// MarkInheritedCloseOnExec marks every descriptor above 2 close-on-exec,
// so that none perfbot inherited from whatever started it (an open secret
// file, a socket) reaches a command it starts: git, go, the sandbox and
// what runs in it. Call it first in main, before any child starts.
// Descriptors Go opens are close-on-exec already; those perfbot hands a
// child on purpose go through exec.Cmd.ExtraFiles, which gives the child
// copies without the flag. perfbot takes no descriptors from its caller
// (no systemd socket activation), so none is needed past exec.
func MarkInheritedCloseOnExec() error {
	err := unix.CloseRange(3, math.MaxUint32, closeRangeCloexec)
	if err == nil {
		return nil
	}
	// Kernels before 5.11 lack the flag (EINVAL), before 5.9 the call
	// (ENOSYS): mark each open descriptor instead.
	entries, rerr := os.ReadDir("/proc/self/fd")
	if rerr != nil {
		return fmt.Errorf("close_range: %v; list open descriptors: %w", err, rerr)
	}
	for _, e := range entries {
		fd, err := strconv.Atoi(e.Name())
		if err != nil || fd < 3 {
			continue
		}
		// The directory's own descriptor is gone by now: EBADF.
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC); err != nil && err != unix.EBADF {
			return fmt.Errorf("mark descriptor %d close-on-exec: %w", fd, err)
		}
	}
	return nil
}
