package sandbox

import (
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
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

// sandboxProcs counts the host's processes running as the default sandbox
// user.
func sandboxProcs(t *testing.T) int {
	t.Helper()
	return procsOf(t, DefaultUID)
}

// procsOf counts the host's processes running as uid.
func procsOf(t *testing.T, uid int) int {
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
		b, err := os.ReadFile("/proc/" + e.Name() + "/status")
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) > 1 && f[0] == "Uid:" && f[1] == strconv.Itoa(uid) {
				n++
			}
		}
	}
	return n
}
