package runner

import (
	"bytes"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// defaultGoBenchFiles are the files of a Go patch laid over the baseline:
// test files that define benchmarks.
var defaultGoBenchFiles = []string{"**/*_test.go"}

// overlayBenchFiles copies the files of changed that match globs from the
// patched worktree into the baseline worktree, so that a benchmark the
// patch adds or changes runs on both sides. Go test files are copied only
// when they define a benchmark. It returns the files copied.
func overlayBenchFiles(patched, base string, changed, globs []string) ([]string, error) {
	var copied []string
	for _, f := range changed {
		if !matchAny(globs, f) {
			continue
		}
		data, err := os.ReadFile(filepath.Join(patched, f))
		if err != nil {
			return copied, fmt.Errorf("overlay %s: %w", f, err)
		}
		if strings.HasSuffix(f, "_test.go") && !bytes.Contains(data, []byte("func Benchmark")) {
			continue
		}
		dst := filepath.Join(base, f)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return copied, err
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			return copied, fmt.Errorf("overlay %s: %w", f, err)
		}
		copied = append(copied, f)
	}
	return copied, nil
}

// matchAny matches a slash path against globs where "**/" matches any
// number of leading directories and a glob without a slash matches the
// base name anywhere.
func matchAny(globs []string, file string) bool {
	for _, g := range globs {
		if rest, ok := strings.CutPrefix(g, "**/"); ok {
			if ok, _ := path.Match(rest, path.Base(file)); ok && !strings.Contains(rest, "/") {
				return true
			}
			parts := strings.Split(file, "/")
			for i := range parts {
				if ok, _ := path.Match(rest, strings.Join(parts[i:], "/")); ok {
					return true
				}
			}
			continue
		}
		if !strings.Contains(g, "/") {
			if ok, _ := path.Match(g, path.Base(file)); ok {
				return true
			}
		}
		if ok, _ := path.Match(g, file); ok {
			return true
		}
	}
	return false
}
