package runner

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"

	"github.com/perfbot/perfbot/compare"
)

// describeHost records the machine the benchmarks run on.
func describeHost(ctx context.Context) compare.Host {
	h := compare.Host{OS: runtime.GOOS, Arch: runtime.GOARCH, Cores: runtime.NumCPU()}
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
		if out, err := exec.CommandContext(ctx, tool[0], tool[1:]...).Output(); err == nil {
			h.Toolchain = append(h.Toolchain, strings.TrimSpace(string(out)))
		}
	}
	return h
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
