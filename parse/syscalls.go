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

// syscallSuccess matches a call's successful return value in hex.
var syscallSuccess = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`--> (?:\[[a-z-]+\] )?Success\(0x([0-9a-f]+)\)`) })

// syscallFirstArg matches a call's first argument, in decimal.
var syscallFirstArg = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*\(\s*(\d+)[,\s)]`) })

// The kinds of the Go runtime's reads and writes of its netpoller's
// eventfd (netpollBreak), which wake a sleeping thread and depend on
// timing, not on the program's work.
const (
	EventfdRead  = "eventfd_read"
	EventfdWrite = "eventfd_write"
)

// ReadSyscallTrace counts the system calls, by kind, in a Valgrind log
// written with --trace-syscalls=yes. Lines that trace no system call (the
// tool's own messages) are skipped; a "SYSCALL[" line that does not have
// the expected shape is an error naming name and its line. Reads and
// writes of a descriptor that eventfd2 returned count as EventfdRead and
// EventfdWrite, not as read and write.
func ReadSyscallTrace(ctx context.Context, r io.Reader, name string) (SyscallTrace, error) {
	t := SyscallTrace{Calls: map[string]float64{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxSyscallLine)
	re := syscallStart()
	// eventfds are the descriptors eventfd2 returned; pending the
	// threads whose eventfd2 call blocked, by "pid,tid".
	eventfds, pending := map[string]bool{}, map[string]bool{}
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
		ms := re.FindAllStringSubmatchIndex(line, -1)
		if len(ms) != strings.Count(line, "SYSCALL[") {
			return SyscallTrace{}, fmt.Errorf("%s:%d: want SYSCALL[PID,TID](NUMBER) NAME or ..., got %q", name, t.Lines, clip(line, 80))
		}
		for i, m := range ms {
			end := len(line)
			if i+1 < len(ms) {
				end = ms[i+1][0]
			}
			thread := line[m[2]:m[3]] + "," + line[m[4]:m[5]]
			kind, rest := line[m[8]:m[9]], line[m[1]:end]
			if _, err := strconv.Atoi(line[m[6]:m[7]]); err != nil {
				return SyscallTrace{}, fmt.Errorf("%s:%d: syscall number %q: %w", name, t.Lines, line[m[6]:m[7]], err)
			}
			if kind == "... " {
				if pending[thread] {
					delete(pending, thread)
					if s := syscallSuccess().FindStringSubmatch(rest); s != nil {
						eventfds[s[1]] = true
					}
				}
				continue
			}
			kind = strings.TrimPrefix(kind, "sys_")
			switch kind {
			case "eventfd2", "eventfd":
				if s := syscallSuccess().FindStringSubmatch(rest); s != nil {
					eventfds[s[1]] = true
				} else {
					pending[thread] = true
				}
			case "read", "write", "close":
				a := syscallFirstArg().FindStringSubmatch(rest)
				if a == nil {
					break
				}
				fd, err := strconv.ParseUint(a[1], 10, 64)
				if err != nil {
					return SyscallTrace{}, fmt.Errorf("%s:%d: descriptor %q: %w", name, t.Lines, a[1], err)
				}
				hex := strconv.FormatUint(fd, 16)
				switch {
				case !eventfds[hex]:
				case kind == "close":
					delete(eventfds, hex)
				case kind == "read":
					kind = EventfdRead
				default:
					kind = EventfdWrite
				}
			}
			t.Calls[kind]++
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
