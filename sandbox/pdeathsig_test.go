//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// pdeathParentEnv turns the test binary into a perfbot-like parent that
// runs a long command through Local and writes the command's pid to the
// file the variable names.
const pdeathParentEnv = "PERFBOT_SANDBOX_PDEATH_PARENT"

// TestLocalCommandDiesWithParent kills a parent that runs a command
// through Local with SIGKILL, which it cannot catch, and checks that the
// command (the parent-death signal) is gone within two seconds.
func TestLocalCommandDiesWithParent(t *testing.T) {
	if pidFile := os.Getenv(pdeathParentEnv); pidFile != "" {
		// The parent: run the command until killed.
		_, err := Local{}.Run(context.Background(), Spec{
			Argv:    []string{"/bin/sh", "-c", `echo $$ >"$1.tmp" && mv "$1.tmp" "$1" && exec sleep 120`, "sh", pidFile},
			Env:     []string{"PATH=" + os.Getenv("PATH")},
			Timeout: 3 * time.Minute,
		})
		t.Fatalf("the command ended while its parent lived: %v", err)
	}
	pidFile := filepath.Join(t.TempDir(), "pid")
	parent := exec.Command(os.Args[0], "-test.run=^TestLocalCommandDiesWithParent$", "-test.count=1")
	parent.Env = append(os.Environ(), pdeathParentEnv+"="+pidFile)
	var out bytes.Buffer
	parent.Stdout, parent.Stderr = &out, &out
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { parent.Process.Kill(); parent.Wait() }()
	pid := waitPidFile(t, pidFile, 20*time.Second, &out)
	defer syscall.Kill(pid, syscall.SIGKILL) // should the test fail

	if err := parent.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	parent.Wait()
	if !goneWithin(pid, 2*time.Second) {
		t.Fatalf("command %d still runs 2s after its parent was killed", pid)
	}
}

// waitPidFile waits for a process id to be written to file.
func waitPidFile(t *testing.T, file string, timeout time.Duration, log *bytes.Buffer) int {
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
	t.Fatalf("no process id in %s after %v; parent output:\n%s", file, timeout, log)
	return 0
}

// goneWithin reports whether process pid ends (or is a zombie waiting for
// a reaper that may never come in a container) within d.
func goneWithin(pid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		if !running(pid) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func running(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the command name in parentheses: "pid (comm) S ...".
	i := bytes.LastIndexByte(data, ')')
	return i < 0 || i+2 >= len(data) || (data[i+2] != 'Z' && data[i+2] != 'X')
}
