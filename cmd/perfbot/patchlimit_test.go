package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/internal/gitrepo"
)

// TestCompareRefusesAnInflatingBinaryPatch: through the command line, a
// patch whose GIT binary patch declares 8 MiB of zeros (a few kilobytes
// compressed) against sandbox.max_file_size 1MiB is refused with exit
// status 2, as a patch that does not apply, naming the setting.
func TestCompareRefusesAnInflatingBinaryPatch(t *testing.T) {
	r := gitrepo.New(t)
	r.Commit("one", map[string]string{"README": "one\n"})
	patch := r.Patch("zeros", map[string]string{"zeros.bin": strings.Repeat("\x00", 8<<20)}, true)
	config := filepath.Join(t.TempDir(), "perfbot.yaml")
	yaml := "sandbox: {max_file_size: 1MiB}\nsuites:\n  s:\n    command: 'echo \"BenchmarkX 1 1 ns/op\"'\n    parser: gobench\n"
	if err := os.WriteFile(config, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	var stdout, stderr bytes.Buffer
	err := run(t.Context(), []string{"compare", "--config", config, "--repo", r.Dir, "--patch", patch, "--cache-dir", cache, "-q"}, &stdout, &stderr)
	if code := exitCode(err, &stderr); code != 2 {
		t.Errorf("exit status %d, want 2", code)
	}
	for _, want := range []string{"refused", "zeros.bin", "literal 8388608", "1 MiB", "sandbox.max_file_size"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr does not say %q:\n%s", want, stderr.String())
		}
	}
}
