//go:build linux

package child

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

	"github.com/perfbot/perfbot/internal/proctest"
	"github.com/perfbot/perfbot/sandbox"
)

// pdeathEnv turns the test binary into one of the processes of
// TestBenchmarkDiesWithWorker: "worker:DIR" runs a compare-like child
// through processRunner, as a worker runs "perfbot compare"; "compare:DIR"
// writes its pid to DIR/compare and runs a long benchmark command through
// sandbox.Local, which writes its pid to DIR/bench.
const pdeathEnv = "PERFBOT_TEST_PDEATH"

// TestBenchmarkDiesWithWorker kills a worker with SIGKILL in the middle of
// a job and checks that its "perfbot compare" child and that child's
// benchmark command are both gone within two seconds.
func TestBenchmarkDiesWithWorker(t *testing.T) {
	self := []string{os.Args[0], "-test.run=^TestBenchmarkDiesWithWorker$", "-test.count=1"}
	if mode := os.Getenv(pdeathEnv); mode != "" {
		role, dir, _ := strings.Cut(mode, ":")
		var err error
		switch role {
		case "worker":
			_, err = processRunner{}.Run(context.Background(), sandbox.Spec{Argv: self,
				Env: append(os.Environ(), pdeathEnv+"=compare:"+dir)})
		case "compare":
			if err = writePid(filepath.Join(dir, "compare"), os.Getpid()); err == nil {
				_, err = sandbox.Local{}.Run(context.Background(), sandbox.Spec{
					Argv: []string{"/bin/sh", "-c", `echo $$ >"$1.tmp" && mv "$1.tmp" "$1" && exec sleep 120`,
						"sh", filepath.Join(dir, "bench")},
					Env: []string{"PATH=" + os.Getenv("PATH")}, Timeout: 3 * time.Minute})
			}
		}
		t.Fatalf("%s: the child ended while its parent lived: %v", role, err)
	}
	dir := t.TempDir()
	worker := exec.Command(self[0], self[1:]...)
	worker.Env = append(os.Environ(), pdeathEnv+"=worker:"+dir)
	var out bytes.Buffer
	worker.Stdout, worker.Stderr = &out, &out
	if err := worker.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { worker.Process.Kill(); worker.Wait() }()
	compare := proctest.WaitPid(t, filepath.Join(dir, "compare"), 20*time.Second, &out)
	defer syscall.Kill(compare, syscall.SIGKILL) // should the test fail
	bench := proctest.WaitPid(t, filepath.Join(dir, "bench"), 20*time.Second, &out)
	defer syscall.Kill(bench, syscall.SIGKILL)

	if err := worker.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	worker.Wait()
	for _, p := range []struct {
		name string
		pid  int
	}{{"compare child", compare}, {"benchmark command", bench}} {
		if !proctest.GoneWithin(p.pid, 2*time.Second) {
			t.Errorf("%s %d still runs 2s after its worker was killed", p.name, p.pid)
		}
	}
}

func writePid(file string, pid int) error {
	if err := os.WriteFile(file+".tmp", []byte(strconv.Itoa(pid)), 0o644); err != nil {
		return err
	}
	return os.Rename(file+".tmp", file)
}
