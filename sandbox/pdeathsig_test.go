//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/perfbot/perfbot/internal/proctest"
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
	pid := proctest.WaitPid(t, pidFile, 20*time.Second, &out)
	defer syscall.Kill(pid, syscall.SIGKILL) // should the test fail

	if err := parent.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	parent.Wait()
	if !proctest.GoneWithin(pid, 2*time.Second) {
		t.Fatalf("command %d still runs 2s after its parent was killed", pid)
	}
}
