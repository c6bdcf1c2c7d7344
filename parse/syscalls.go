package parse

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// SyscallTrace is what Valgrind's --trace-syscalls=yes wrote into its log
// (--log-file): the system calls the program made, by kind.
type SyscallTrace struct {
	// Calls maps each kind, named as the kernel does without Valgrind's
	// "sys_" prefix ("write", "futex", "clock_gettime"), to the number of
	// calls the program made.
	Calls map[string]float64
	// Lines is the number of lines read.
	Lines int
}

// syscallStart matches one traced system call in Valgrind's log:
//
//	SYSCALL[12526,1](1) sys_write ( 4, 0x..., 8 ) --> [async] ...
//	SYSCALL[12526,1](1) ... [async] --> Success(0x8)
//
// The second form ends a call that blocked (already counted at its start).
// Valgrind writes the threads' lines into one log, so a call's start can
// follow another call's arguments on the same line: every match of a line
// counts.
var syscallStart = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`SYSCALL\[(\d+),(\d+)\]\((\d+)\) (\.\.\. |[A-Za-z_][A-Za-z0-9_]*)`)
})

// maxSyscallLine caps one line of a syscall trace; Valgrind prints the
// arguments of a call, not its buffers, so lines are short.
const maxSyscallLine = 1 << 20

// ReadSyscallTrace counts the system calls, by kind, in a Valgrind log
// written with --trace-syscalls=yes. Lines that trace no system call (the
// tool's own messages) are skipped; a "SYSCALL[" line that does not have
// the expected shape is an error naming name and its line.
func ReadSyscallTrace(ctx context.Context, r io.Reader, name string) (SyscallTrace, error) {
	t := SyscallTrace{Calls: map[string]float64{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxSyscallLine)
	re := syscallStart()
	for sc.Scan() {
		t.Lines++
		if t.Lines%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return SyscallTrace{}, err
			}
		}
		line := sc.Text()
		if !strings.Contains(line, "SYSCALL[") {
			continue
		}
		ms := re.FindAllStringSubmatch(line, -1)
		if len(ms) != strings.Count(line, "SYSCALL[") {
			return SyscallTrace{}, fmt.Errorf("%s:%d: want SYSCALL[PID,TID](NUMBER) NAME or ..., got %q", name, t.Lines, clip(line, 80))
		}
		for _, m := range ms {
			if _, err := strconv.Atoi(m[3]); err != nil {
				return SyscallTrace{}, fmt.Errorf("%s:%d: syscall number %q: %w", name, t.Lines, m[3], err)
			}
			if m[4] == "... " {
				continue
			}
			t.Calls[strings.TrimPrefix(m[4], "sys_")]++
		}
	}
	if err := sc.Err(); err != nil {
		return SyscallTrace{}, fmt.Errorf("%s:%d: %w", name, t.Lines+1, err)
	}
	return t, nil
}

// clip shortens s to at most n bytes for an error message.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
