// Package proctest helps tests that kill a process and check that its
// children die with it: they read the children's process ids from files
// and watch /proc for the processes to end.
package proctest

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// WaitPid waits up to timeout for a process id to be written to file and
// returns it; it fails the test, showing log (the output of the process
// that should have written it), when none comes.
func WaitPid(t testing.TB, file string, timeout time.Duration, log *bytes.Buffer) int {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if data, err := os.ReadFile(file); err == nil {
			pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
			if err != nil {
				t.Fatalf("%s: %q is not a process id", file, data)
			}
			return pid
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no process id in %s after %v; output:\n%s", file, timeout, log)
	return 0
}

// GoneWithin reports whether process pid ends within d. A zombie counts as
// ended: in some containers no reaper ever collects it.
func GoneWithin(pid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		if !Running(pid) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Running reports whether process pid exists and is neither a zombie nor
// dead.
func Running(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the command name in parentheses: "pid (comm) S ...".
	i := bytes.LastIndexByte(data, ')')
	return i < 0 || i+2 >= len(data) || (data[i+2] != 'Z' && data[i+2] != 'X')
}
