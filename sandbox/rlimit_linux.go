package sandbox

import (
	"syscall"
	"unsafe"
)

// rlimitNPROC is RLIMIT_NPROC on Linux (absent from package syscall).
const rlimitNPROC = 6

// setRlimit sets both the soft and hard limit of resource for process pid.
func setRlimit(pid, resource int, value uint64) error {
	lim := syscall.Rlimit{Cur: value, Max: value}
	_, _, errno := syscall.RawSyscall6(syscall.SYS_PRLIMIT64, uintptr(pid), uintptr(resource),
		uintptr(unsafe.Pointer(&lim)), 0, 0, 0)
	if errno != 0 {
		return errno
	}
	return nil
}
