package runner

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/perfbot/perfbot/internal/safefile"
)

// defaultGoBenchFiles are the files of a Go patch laid over the baseline:
// test files that define benchmarks.
var defaultGoBenchFiles = []string{"**/*_test.go"}

// overlayBenchFiles copies the files of changed that match globs from the
// patched worktree into the baseline worktree, so that a benchmark the
// patch adds or changes runs on both sides. Go test files are copied only
// when they define a benchmark. It returns the files copied and notes on
// the files it left out (a symbolic link, a submodule, a file too large).
// Each file copied keeps the baseline's own version, so that it can be
// taken back when it does not build there. Reading follows no symbolic
// link and is bounded; writing replaces what is in the baseline and
// follows no link either.
func overlayBenchFiles(patched, base string, changed []changedFile, globs []string) (copied []overlayFile, notes []string, err error) {
	for _, f := range changed {
		if !matchAny(globs, f.path) {
			continue
		}
		if !f.regular() {
			what := "a symbolic link"
			if f.mode == "160000" {
				what = "a submodule"
			}
			notes = append(notes, fmt.Sprintf("%s is %s in the patch and was not laid over the baseline", f.path, what))
			continue
		}
		data, err := safefile.ReadFile(patched, f.path, safefile.MaxSource)
		if err != nil {
			notes = append(notes, fmt.Sprintf("%v; not laid over the baseline", err))
			continue
		}
		if strings.HasSuffix(f.path, "_test.go") && !bytes.Contains(data, []byte("func Benchmark")) {
			continue
		}
		of := overlayFile{path: f.path}
		orig, err := safefile.ReadFile(base, f.path, safefile.MaxSource)
		switch {
		case err == nil:
			of.orig = orig
		case errors.Is(err, fs.ErrNotExist):
			of.added = true
		default:
			notes = append(notes, fmt.Sprintf("%v in the baseline; not laid over it", err))
			continue
		}
		if err := safefile.WriteFile(base, f.path, data, 0o644); err != nil {
			return copied, notes, fmt.Errorf("overlay: %w", err)
		}
		copied = append(copied, of)
	}
	return copied, notes, nil
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
