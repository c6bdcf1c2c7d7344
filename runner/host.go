package runner

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"

	"github.com/perfbot/perfbot/provenance"
)

// describeHost records the machine the benchmarks run on.
func describeHost(ctx context.Context) provenance.Host {
	h := provenance.Host{OS: runtime.GOOS, Arch: runtime.GOARCH, Cores: runtime.NumCPU()}
	h.Name, _ = os.Hostname()
	var u syscall.Utsname
	if syscall.Uname(&u) == nil {
		h.Kernel = utsString(u.Release[:])
	}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				h.CPU = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	for _, tool := range [][]string{{"go", "version"}, {"git", "version"}} {
		if out, err := hostCommand(ctx, tool...).Output(); err == nil {
			h.Toolchain = append(h.Toolchain, strings.TrimSpace(string(out)))
		}
	}
	return h
}

// hostCommand prepares a tool perfbot runs on the host for itself (go
// version, git version): in the root directory, where no go.mod, go.work or
// repository of a patch can steer it, with an environment of its own:
// git's (no config, no secrets), plus GOTOOLCHAIN=local so that go never
// fetches or runs another toolchain, and no GOFLAGS.
func hostCommand(ctx context.Context, argv ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = "/"
	cmd.Env = gitEnv("GOTOOLCHAIN=local", "GOENV=off")
	return cmd
}

func utsString(b []int8) string {
	var s strings.Builder
	for _, c := range b {
		if c == 0 {
			break
		}
		s.WriteByte(byte(c))
	}
	return s.String()
}
