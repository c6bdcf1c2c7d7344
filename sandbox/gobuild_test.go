package sandbox

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestGoBuildInSandbox builds a small module the way the runner does: the
// build step with the network and the host's module cache read-only, a
// writable build cache in the worktree, then the benchmark step without
// network.
func TestGoBuildInSandbox(t *testing.T) {
	b, dir := newSandbox(t)
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("go not on PATH: %v", err)
	}
	modcache, err := exec.Command(goBin, "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	modDir := strings.TrimSpace(string(modcache))
	const dep = "github.com/aclements/go-moremath v0.0.0-20210112150236-f10218a38794"
	if _, err := os.Stat(filepath.Join(modDir, "github.com/aclements/go-moremath@v0.0.0-20210112150236-f10218a38794")); err != nil {
		t.Skipf("module %s not in the module cache %s", dep, modDir)
	}
	files := map[string]string{
		"go.mod": "module example.com/tiny\n\ngo 1.22\n\nrequire " + dep + "\n",
		"go.sum": dep + " h1:xlwdaKcTNVW4PtpQb8aKA4Pjy0CdJHEqvFbAnvR5m2g=\n" +
			dep + "/go.mod h1:7e+I0LQFUI9AXWxOfsQROs9xPhoJtbsyWcjJqDd4KPY=\n",
		"main.go": "package main\n\nimport (\n\t\"fmt\"\n\n\t\"github.com/aclements/go-moremath/stats\"\n)\n\n" +
			"func main() { fmt.Println(\"mean\", stats.Mean([]float64{1, 2, 3, 6})) }\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cache := filepath.Join(dir, ".gocache")
	if err := os.Mkdir(cache, 0o755); err != nil {
		t.Fatal(err)
	}
	goroot, err := exec.Command(goBin, "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	env, err := Environ(os.Environ(), append(BaseEnv, "GOPROXY"), []string{
		"PATH=" + filepath.Dir(goBin) + ":/usr/bin:/bin",
		"GOROOT=" + strings.TrimSpace(string(goroot)),
		"GOMODCACHE=" + modDir,
		"GOCACHE=" + cache,
		"GOFLAGS=-mod=mod",
		"GOTOOLCHAIN=local",
	})
	if err != nil {
		t.Fatal(err)
	}
	build := run(t, b, Spec{Dir: dir, Env: env, Network: FullNetwork, ReadOnly: []string{modDir},
		Timeout: 5 * time.Minute, MemoryBytes: 2 << 30, MaxProcs: 512,
		Argv: []string{"go", "build", "-o", "tiny", "."}})
	if !build.OK() {
		t.Fatalf("go build failed in the sandbox: %s", build.Stderr)
	}
	bench := run(t, b, Spec{Dir: dir, Env: env, Network: NoNetwork, Argv: []string{"./tiny"}})
	if !bench.OK() || !bytes.Equal(bench.Stdout, []byte("mean 3\n")) {
		t.Fatalf("the built program printed %q", bench.Stdout)
	}
}
