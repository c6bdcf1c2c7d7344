package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/internal/gitrepo"
)

// TestInheritedDescriptorStaysOutOfCommands starts the built perfbot as a
// caller could, with a descriptor open on a secret file (fd 9), and runs
// a comparison whose benchmark looks for it among its own descriptors in
// the sandbox: it must find none. The file is root's, mode 0600: only the
// inherited descriptor itself could be read. The benchmark reports 1 plus
// the number of descriptors above 2 it read the secret through.
func TestInheritedDescriptorStaysOutOfCommands(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH")
	}
	bin := filepath.Join(t.TempDir(), "perfbot")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	const mark = "INHERITED-SECRET-4f1c9a"
	secretFile := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secretFile, []byte(mark+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	secret, err := os.Open(secretFile)
	if err != nil {
		t.Fatal(err)
	}
	defer secret.Close()

	r := gitrepo.New(t)
	r.Commit("one", map[string]string{"README": "one\n"})
	config := filepath.Join(t.TempDir(), "perfbot.yaml")
	yaml := `suites:
  fds:
    command: 'n=0; for d in 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do [ -f /proc/self/fd/$d ] && grep -q ` + mark + ` <&$d && n=$((n+1)); done; echo "BenchmarkLeak 1 $((1+n)) ns/op"'
    parser: gobench
    count: 2
    warmup: 0
`
	if err := os.WriteFile(config, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	args := []string{"compare", "--config", config, "--repo", r.Dir, "--base", "HEAD", "--head", "HEAD", "--out", out, "--cache-dir", t.TempDir(), "-q"}
	if _, err := exec.LookPath("bwrap"); err != nil || os.Geteuid() != 0 {
		// Unsandboxed commands must not see it either.
		args = append(args, "--no-sandbox")
	}
	cmd := exec.Command(bin, args...)
	// ExtraFiles[i] is the child's fd 3+i: the secret is fd 9.
	cmd.ExtraFiles = make([]*os.File, 7)
	cmd.ExtraFiles[6] = secret
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("perfbot %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	// Reading the descriptor moves its shared offset to the end: only the
	// first round to read it can find the secret, so every sample counts.
	samples := 0
	for _, f := range []string{"results-base.txt", "results-HEAD.txt"} {
		data, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Fatal(err)
		}
		for line := range strings.Lines(string(data)) {
			fields := strings.Fields(line)
			if len(fields) != 4 || !strings.HasPrefix(fields[0], "BenchmarkLeak") {
				continue
			}
			samples++
			if fields[2] != "1" {
				t.Errorf("%s: %s: the benchmark read the secret through inherited descriptors (want none)", f, strings.TrimSpace(line))
			}
		}
	}
	if samples != 4 {
		t.Fatalf("%d BenchmarkLeak samples, want 4:\n%s", samples, stderr.String())
	}
}
