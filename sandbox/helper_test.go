package sandbox

import (
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// helperEnv names the variable that turns the test binary into a probe run
// inside the sandbox: "dial:ADDR", "serve:ADDR", "loopback" or "alloc:MiB".
const helperEnv = "PERFBOT_SANDBOX_HELPER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(helper(mode))
	}
	os.Exit(m.Run())
}

// helper is the probe's main.
func helper(mode string) int {
	kind, arg, _ := strings.Cut(mode, ":")
	switch kind {
	case "dial":
		c, err := net.DialTimeout("tcp", arg, 2*time.Second)
		if err != nil {
			fmt.Println("dial failed:", err)
			return 1
		}
		c.Close()
		fmt.Println("connected")
		return 0
	case "unix":
		c, err := net.DialTimeout("unix", arg, 2*time.Second)
		if err != nil {
			fmt.Println("dial failed:", err)
			return 1
		}
		c.Close()
		fmt.Println("connected")
		return 0
	case "serve":
		// Answers "pong" to every connection until killed.
		l, err := net.Listen("tcp", arg)
		if err != nil {
			fmt.Println("listen failed:", err)
			return 1
		}
		for {
			c, err := l.Accept()
			if err != nil {
				return 1
			}
			c.Write([]byte("pong"))
			c.Close()
		}
	case "loopback":
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			fmt.Println("listen failed:", err)
			return 1
		}
		go func() {
			if c, err := l.Accept(); err == nil {
				c.Write([]byte("pong"))
				c.Close()
			}
		}()
		c, err := net.DialTimeout("tcp", l.Addr().String(), 2*time.Second)
		if err != nil {
			fmt.Println("dial failed:", err)
			return 1
		}
		b, _ := io.ReadAll(c)
		fmt.Printf("loopback %s\n", b)
		return 0
	case "write":
		// Go ignores SIGXFSZ: a write past RLIMIT_FSIZE fails with EFBIG.
		mib, _ := strconv.Atoi(arg)
		f, err := os.Create("big")
		if err != nil {
			fmt.Println(err)
			return 1
		}
		chunk := make([]byte, 1<<20)
		for i := 0; i < mib; i++ {
			if _, err := f.Write(chunk); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
		}
		if err := f.Close(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Println("wrote", mib, "MiB")
		return 0
	case "big":
		// One slice, its pages touched one by one: Go maps it over its own
		// address space reservation, which RLIMIT_DATA does not see.
		mib, _ := strconv.Atoi(arg)
		b := make([]byte, mib<<20)
		for j := 0; j < len(b); j += 4096 {
			b[j] = 1
		}
		fmt.Println("touched", len(b)>>20, "MiB")
		return 0
	case "alloc":
		mib, _ := strconv.Atoi(arg)
		var keep [][]byte
		for i := 0; i < mib; i++ {
			b := make([]byte, 1<<20)
			for j := range b {
				b[j] = byte(j)
			}
			keep = append(keep, b)
		}
		fmt.Println("allocated", len(keep), "MiB")
		return 0
	}
	fmt.Println("unknown helper mode", mode)
	return 2
}

// installHelper copies the test binary into dir so that the sandbox user
// can run it, and returns its path.
func installHelper(t *testing.T, dir string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, "probe")
	if err := os.WriteFile(dst, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return dst
}

// processMark returns an environment entry unique to one test's command:
// its processes and every descendant inherit it, so markedProcs counts
// them alone, whatever else runs as the sandbox user (other packages'
// tests share it).
func processMark(t *testing.T) string {
	return fmt.Sprintf("PERFBOT_TEST_MARK=%d-%d", os.Getpid(), time.Now().UnixNano())
}

// markedProcs counts the host's processes whose environment holds mark.
// Reading another user's environment takes root; without it the count is
// 0.
func markedProcs(t *testing.T, mark string) int {
	t.Helper()
	if os.Geteuid() != 0 {
		return 0
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil {
			continue
		}
		if slices.Contains(strings.Split(string(b), "\x00"), mark) {
			n++
		}
	}
	return n
}

// waitMarkedProcs gives the kernel up to three seconds to reap a killed
// tree (a loaded machine takes longer than an idle one) and returns how
// many of its processes are left.
func waitMarkedProcs(t *testing.T, mark string) int {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for {
		n := markedProcs(t, mark)
		if n == 0 || time.Now().After(deadline) {
			return n
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestMarkedProcsCountsMarked checks the count the hostile tests rely on:
// a process started with the mark is counted, and no longer once it is
// gone.
func TestMarkedProcsCountsMarked(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("reading another process's environment takes root")
	}
	mark := processMark(t)
	cmd := exec.Command("sleep", "30")
	cmd.Env = append(os.Environ(), mark)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if n := markedProcs(t, mark); n != 1 {
		t.Errorf("%d processes counted with the mark, want 1", n)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if n := markedProcs(t, mark); n != 0 {
		t.Errorf("%d processes counted after the marked one ended, want 0", n)
	}
}
