package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// sharedCache is one cache home for the tests whose jobs build Go
// benchmarks: as XDG_CACHE_HOME it holds the unsandboxed builds' Go
// build cache (go-build) and perfbot's default --cache-dir (perfbot),
// whose trusted layer of the standard library's packages sandboxed jobs
// copy. A fresh cache makes each job compile the standard library first,
// a minute or more on a loaded 2-core host; with this one only the first
// job of the test binary does, and the later ones reuse it as a host's
// later jobs do. Each test's repository is its own, so no clone,
// worktree or module cache is shared. Tests about the cache itself keep
// their own.
var sharedCache struct {
	once sync.Once
	dir  string
	err  error
}

// sharedCacheHome returns the shared cache home, made on first use and
// removed by TestMain.
func sharedCacheHome(t *testing.T) string {
	t.Helper()
	sharedCache.once.Do(func() {
		sharedCache.dir, sharedCache.err = os.MkdirTemp("", "perfbot-test-cache-")
	})
	if sharedCache.err != nil {
		t.Fatal(sharedCache.err)
	}
	return sharedCache.dir
}

// sharedCacheDir is the shared --cache-dir: perfbot's default cache
// directory under the shared cache home.
func sharedCacheDir(t *testing.T) string {
	t.Helper()
	return filepath.Join(sharedCacheHome(t), "perfbot")
}

// removeSharedCache removes the shared cache home, if a test made it,
// with the read-only directories of Go's module cache made writable
// first.
func removeSharedCache() {
	if sharedCache.dir == "" {
		return
	}
	_ = filepath.WalkDir(sharedCache.dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(path, 0o755)
		}
		return nil
	})
	_ = os.RemoveAll(sharedCache.dir)
}
