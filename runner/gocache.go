package runner

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/provenance"
	"github.com/perfbot/perfbot/sandbox"
)

// GoCaches asks the runner to give sandboxed Go builds caches that no other
// job, and no other side of the same job, can write or read:
//
//   - a build cache (GOCACHE) per side of the job under CACHE/jobs, a copy
//     of the trusted standard-library layer (CACHE/go-std), removed with
//     the job. Only the warm step writes the trusted layer: "go build" of
//     the standard packages every test binary links, run by perfbot
//     outside any repository once per toolchain and environment, so it
//     holds no code of any job;
//   - a module cache (GOMODCACHE) per repository (CACHE/repos/HASH/go-mod),
//     written only by the fetch step, which runs "go mod download" (the go
//     command alone, no repository code) with the network before the first
//     build of each side, and bound read-only into every build and round.
//
// Builds then run without network, with GOPROXY=off (Options.Env says so).
type GoCaches struct {
	// FetchEnv is what the fetch step sets on top of Options.Env: the
	// host's GOPROXY and GOSUMDB, so that modules come verified by go.sum
	// and the checksum database.
	FetchEnv []string
}

const (
	// modCacheMaxAge is how long a repository's module cache is kept
	// without a job using it.
	modCacheMaxAge = 30 * 24 * time.Hour
	// modCacheMaxSize is the size above which a repository's module cache
	// is emptied before a job and fetched anew.
	modCacheMaxSize = 8 << 30
)

// jobCaches are one job's Go caches.
type jobCaches struct {
	// modCache is the repository's module cache, read-only to builds.
	modCache string
	// dir holds the job's private caches, one directory per side.
	dir  string
	lock *os.File
	env  []string
	// fetched remembers the module roots fetched per side.
	fetched map[string]bool
	// std is the trusted layer of the standard library's builds; warmed
	// says whether it is ready for this job's toolchain and environment
	// (tried once per job), seeded which sides' caches hold a copy.
	std    string
	warmed *bool
	seeded map[string]bool
}

// openJobCaches prepares the caches of a job on the repository whose
// workspace is wsDir: it removes what crashed jobs left, the shared caches
// of older perfbot versions (any job could write them), and a module cache
// that is too old, too big or cannot be walked, then makes the job's own
// directory. Close removes it.
func openJobCaches(cacheDir, wsDir string, gc *GoCaches, progress io.Writer) (*jobCaches, error) {
	jobs := filepath.Join(cacheDir, "jobs")
	if err := os.MkdirAll(jobs, 0o755); err != nil {
		return nil, fmt.Errorf("job caches: %w", err)
	}
	sweepJobs(jobs, progress)
	for _, old := range []string{"go-build", "go-mod"} {
		p := filepath.Join(cacheDir, old)
		if _, err := os.Lstat(p); err == nil {
			fmt.Fprintf(progress, "perfbot: removing the shared cache %s, which every job could write\n", p)
			if err := removeTree(p); err != nil {
				fmt.Fprintf(progress, "perfbot: %v\n", err)
			}
		}
	}
	trimModCaches(filepath.Dir(wsDir), wsDir, progress)
	c := &jobCaches{modCache: filepath.Join(wsDir, "go-mod"), env: gc.FetchEnv, fetched: map[string]bool{},
		std: filepath.Join(cacheDir, "go-std"), seeded: map[string]bool{}}
	if why := checkModCache(c.modCache); why != "" {
		fmt.Fprintf(progress, "perfbot: module cache %s made anew: %s\n", c.modCache, why)
		if err := removeTree(c.modCache); err != nil {
			// Out of the way, so that this job and the next have a
			// cache they can use; the sweep of the next job removes it.
			if err := os.Rename(c.modCache, filepath.Join(jobs, fmt.Sprintf("stale-%d", time.Now().UnixNano()))); err != nil {
				return nil, fmt.Errorf("module cache %s cannot be walked (%s) nor moved away: %w", c.modCache, why, err)
			}
		}
	}
	if err := os.MkdirAll(c.modCache, 0o755); err != nil {
		return nil, fmt.Errorf("module cache: %w", err)
	}
	now := time.Now()
	os.Chtimes(c.modCache, now, now) // when the cache was last used, for trimModCaches
	dir, err := os.MkdirTemp(jobs, "job-")
	if err != nil {
		return nil, fmt.Errorf("job caches: %w", err)
	}
	c.dir = dir
	if c.lock, err = lockDir(dir, true); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// Close removes the job's private caches.
func (c *jobCaches) Close() error {
	err := removeTree(c.dir)
	c.lock.Close()
	return err
}

// sideDir is side's private build cache, made on first use.
func (c *jobCaches) sideCache(side string) (string, error) {
	d := filepath.Join(c.dir, sanitize(side), "go-build")
	if err := os.MkdirAll(d, 0o755); err != nil {
		return "", fmt.Errorf("build cache of %s: %w", side, err)
	}
	return d, nil
}

// forSide returns opts for side s: its own build cache in the environment
// and among the directories builds may write, and the repository's module
// cache, read-only.
func (c *jobCaches) forSide(opts Options, s *side) (Options, error) {
	gocache, err := c.sideCache(s.name)
	if err != nil {
		return opts, err
	}
	opts.Env = setEnv(opts.Env, "GOCACHE="+gocache, "GOMODCACHE="+c.modCache)
	opts.BuildWritable = append(append([]string(nil), opts.BuildWritable...), gocache)
	return opts, nil
}

// setEnv returns env with each KEY=VALUE of set replacing that key's
// entries.
func setEnv(env []string, set ...string) []string {
	out := make([]string, 0, len(env)+len(set))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		keep := true
		for _, s := range set {
			if sk, _, _ := strings.Cut(s, "="); sk == k {
				keep = false
			}
		}
		if keep {
			out = append(out, kv)
		}
	}
	return append(out, set...)
}

// fetchModules runs "go mod download" for the Go module or workspace that
// holds dir on side s, once per job and side, with the network and the
// module cache writable; no other command of the job may write that cache.
// It returns a failure when the fetch failed: the build, which has no
// network, would fail for want of a module.
func (c *jobCaches) fetchModules(ctx context.Context, suite *config.Suite, s *side, dir string, opts Options) (*provenance.Failure, error) {
	root := moduleRoot(s.worktree, dir)
	if root == "" || c.fetched[s.name+"\x00"+root] {
		return nil, nil
	}
	c.fetched[s.name+"\x00"+root] = true
	gocache, err := c.sideCache(s.name)
	if err != nil {
		return nil, err
	}
	if c.warm(ctx, opts) && !c.seeded[s.name] {
		c.seeded[s.name] = true
		if err := c.copyLayer(gocache); err != nil {
			return nil, fmt.Errorf("build cache of %s: %w", s.name, err)
		}
	}
	env := setEnv(opts.Env, append([]string{"GOCACHE=" + gocache, "GOMODCACHE=" + c.modCache}, c.env...)...)
	res, err := opts.Sandbox.Run(ctx, sandbox.Spec{
		Argv: []string{"go", "mod", "download"}, Dir: root, Env: env,
		Timeout: durationOr(suite.BuildTimeout, config.DefaultBuildTimeout), MaxOutput: opts.MaxOutput,
		Network: sandbox.FullNetwork, Writable: []string{c.modCache, gocache},
	})
	if err != nil {
		return nil, fmt.Errorf("suite %s: go mod download on %s: %w", suite.Name, s.name, err)
	}
	if res.OK() {
		return nil, nil
	}
	rel, _ := filepath.Rel(s.worktree, root)
	return &provenance.Failure{Variant: s.name, Stage: "build", Limit: res.Limit, LogTail: tailOf(res, 30),
		Message: fmt.Sprintf("suite %s: go mod download in %s failed: perfbot fetches the modules before the build, which has no network", suite.Name, rel)}, nil
}

// moduleRoot returns the directory at or above dir, within worktree, that
// holds a go.work or go.mod file ("" if none does).
func moduleRoot(worktree, dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if rel, err := filepath.Rel(worktree, d); err != nil || !filepath.IsLocal(rel) && rel != "." {
			return ""
		}
		for _, f := range []string{"go.work", "go.mod"} {
			if fi, err := os.Lstat(filepath.Join(d, f)); err == nil && fi.Mode().IsRegular() {
				return d
			}
		}
		if d == worktree {
			return ""
		}
	}
}

// checkModCache says why the module cache at dir cannot be kept: it is
// older than modCacheMaxAge unused, bigger than modCacheMaxSize, or cannot
// be walked; "" keeps it.
func checkModCache(dir string) string {
	fi, err := os.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return ""
	case err != nil:
		return err.Error()
	case !fi.IsDir():
		return "not a directory"
	case time.Since(fi.ModTime()) > modCacheMaxAge:
		return fmt.Sprintf("unused since %s", fi.ModTime().Format(time.DateOnly))
	}
	size, err := diskUsage([]string{dir})
	if err != nil {
		return err.Error()
	}
	if size > modCacheMaxSize {
		return fmt.Sprintf("it holds %s, more than %s", formatSize(size), formatSize(modCacheMaxSize))
	}
	return ""
}

// trimModCaches removes the module caches of the other repositories under
// reposDir that no job used for modCacheMaxAge, when no job holds their
// workspace.
func trimModCaches(reposDir, own string, progress io.Writer) {
	entries, err := os.ReadDir(reposDir)
	if err != nil {
		return
	}
	for _, e := range entries {
		ws := filepath.Join(reposDir, e.Name())
		mc := filepath.Join(ws, "go-mod")
		fi, err := os.Lstat(mc)
		if ws == own || err != nil || time.Since(fi.ModTime()) <= modCacheMaxAge {
			continue
		}
		lock, err := os.OpenFile(filepath.Join(ws, "lock"), os.O_RDWR, 0)
		if err != nil {
			continue
		}
		if syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
			fmt.Fprintf(progress, "perfbot: removing module cache %s, unused since %s\n", mc, fi.ModTime().Format(time.DateOnly))
			removeTree(mc)
		}
		lock.Close()
	}
}

// sweepJobs removes what jobs that ended without cleaning up left under
// jobs: every entry no running job holds locked.
func sweepJobs(jobs string, progress io.Writer) {
	entries, err := os.ReadDir(jobs)
	if err != nil {
		return
	}
	for _, e := range entries {
		p := filepath.Join(jobs, e.Name())
		if e.IsDir() && strings.HasPrefix(e.Name(), "job-") {
			lock, err := lockDir(p, false)
			if err != nil {
				continue // a running job's
			}
			err = removeTree(p)
			lock.Close()
			if err != nil {
				fmt.Fprintf(progress, "perfbot: %v\n", err)
			}
			continue
		}
		if err := removeTree(p); err != nil {
			fmt.Fprintf(progress, "perfbot: %v\n", err)
		}
	}
}

// lockDir locks dir's lock file, waiting for it when wait is set.
func lockDir(dir string, wait bool) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(filepath.Dir(dir), "."+filepath.Base(dir)+".lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("job caches: %w", err)
	}
	how := syscall.LOCK_EX
	if !wait {
		how |= syscall.LOCK_NB
	}
	if err := syscall.Flock(int(f.Fd()), how); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	return f, nil
}

// removeTree removes path and everything under it, however deep, making
// read-only directories (a module cache's) writable first when it must.
func removeTree(path string) error {
	if os.RemoveAll(path) == nil {
		return nil
	}
	chmodTree(path)
	if err := os.RemoveAll(path); err != nil {
		return fmt.Errorf("remove %s: %w", path, err)
	}
	os.Remove(filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".lock"))
	return nil
}

// chmodTree makes every directory under path writable and searchable by its
// owner, without following symbolic links; it works beneath PATH_MAX by
// descending one directory at a time.
func chmodTree(path string) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	chmodAt(fd)
}

func chmodAt(fd int) {
	defer syscall.Close(fd)
	syscall.Fchmod(fd, 0o700)
	names, _ := dirNames(fd)
	for _, n := range names {
		child, err := openDirAt(fd, n)
		if err != nil {
			continue
		}
		chmodAt(child)
	}
}

// stdMaxSize is the size above which the trusted standard-library layer
// is built anew.
const stdMaxSize = 2 << 30

// warm makes sure the trusted layer holds the standard packages of a test
// binary built for this toolchain and environment, and reports whether it
// does. It runs "go build" of stdPackages in the sandbox, without network, in an empty directory,
// into a new cache that becomes the layer once the build succeeded; no
// repository file is within its reach. A layer too old or too big, or one
// that cannot be walked, is built anew.
func (c *jobCaches) warm(ctx context.Context, opts Options) bool {
	if c.warmed != nil {
		return *c.warmed
	}
	ok := false
	c.warmed = &ok
	key, cgo, err := stdKey(ctx, opts.Env)
	if err != nil {
		return false
	}
	why := checkLayer(c.std)
	if _, err := os.Lstat(filepath.Join(c.std, "perfbot-"+key)); err == nil && why == "" {
		ok = true
		return true
	}
	parent := filepath.Dir(c.std)
	staging, err := os.MkdirTemp(parent, ".go-std-")
	if err != nil {
		return false
	}
	defer removeTree(staging)
	if err := os.Chmod(staging, 0o755); err != nil {
		return false
	}
	cache, work := filepath.Join(staging, "cache"), filepath.Join(staging, "empty")
	for _, d := range []string{cache, work} {
		if err := os.Mkdir(d, 0o755); err != nil {
			return false
		}
	}
	// A layer that is fine is kept and added to, so that two
	// environments (GOAMD64 levels, compilers) share it.
	if why == "" {
		if err := c.copyLayer(cache); err != nil {
			return false
		}
	}
	if opts.Progress != nil {
		fmt.Fprintf(opts.Progress, "perfbot: building the standard packages of test binaries into the trusted build cache\n")
	}
	res, err := opts.Sandbox.Run(ctx, sandbox.Spec{
		Argv: append([]string{"go", "build"}, stdPackages(cgo)...), Dir: work, Env: setEnv(opts.Env, "GOCACHE="+cache, "GOMODCACHE="+filepath.Join(staging, "none")),
		Timeout: config.DefaultBuildTimeout, MaxOutput: opts.MaxOutput, Network: sandbox.NoNetwork, Writable: []string{cache},
	})
	if err != nil || !res.OK() {
		return false
	}
	if err := os.WriteFile(filepath.Join(cache, "perfbot-"+key), nil, 0o644); err != nil {
		return false
	}
	if err := c.replaceLayer(cache, staging+"-old"); err != nil {
		return false
	}
	ok = true
	return true
}

// lockLayer takes the trusted layer's lock, shared (syscall.LOCK_SH) to
// copy from the layer or exclusive (syscall.LOCK_EX) to replace it, waiting
// for it. Go trusts a build cache's index, so a copy that read half of the
// old layer and half of the new one would point at outputs it never got:
// jobs that share a cache folder copy and replace the layer under this lock.
func (c *jobCaches) lockLayer(how int) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(filepath.Dir(c.std), "."+filepath.Base(c.std)+".lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("trusted build cache: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), how); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock the trusted build cache: %w", err)
	}
	return f, nil
}

// copyLayer copies the trusted layer into dst, holding its lock shared.
func (c *jobCaches) copyLayer(dst string) error {
	lock, err := c.lockLayer(syscall.LOCK_SH)
	if err != nil {
		return err
	}
	defer lock.Close()
	return copyTree(c.std, dst)
}

// replaceLayer makes the built cache the trusted layer, holding its lock
// exclusive so that no job copies from the layer meanwhile; the old layer
// goes to old and is removed after the lock is released.
func (c *jobCaches) replaceLayer(cache, old string) error {
	lock, err := c.lockLayer(syscall.LOCK_EX)
	if err != nil {
		return err
	}
	os.Rename(c.std, old)
	if err = os.Rename(cache, c.std); err != nil {
		os.Rename(old, c.std) // keep the layer there was
	}
	lock.Close()
	removeTree(old)
	return err
}

// checkLayer says why the trusted layer at dir cannot be kept ("" keeps
// it).
func checkLayer(dir string) string {
	fi, err := os.Lstat(dir)
	switch {
	case err != nil:
		return err.Error()
	case !fi.IsDir():
		return "not a directory"
	case time.Since(fi.ModTime()) > modCacheMaxAge:
		return "too old"
	}
	size, err := diskUsage([]string{dir})
	if err != nil {
		return err.Error()
	}
	if size > stdMaxSize {
		return "too big"
	}
	return ""
}

// stdPackages are the packages the warm step builds: what every test
// binary links (its main's dependencies), and cgo's runtime when cgo is
// on.
func stdPackages(cgo bool) []string {
	pkgs := []string{"testing/internal/testdeps", "os/signal"}
	if cgo {
		pkgs = append(pkgs, "runtime/cgo")
	}
	return pkgs
}

// stdKey names the toolchain and the environment a standard-library
// build depends on, and says whether cgo is on.
func stdKey(ctx context.Context, env []string) (string, bool, error) {
	cmd := exec.CommandContext(ctx, "go", "env", "GOVERSION", "GOROOT", "GOOS", "GOARCH", "GOAMD64", "CC", "CGO_ENABLED", "CGO_CFLAGS", "CGO_LDFLAGS", "GOEXPERIMENT")
	cmd.Dir = "/"
	cmd.Env = setEnv(env, "GOENV=off", "GOFLAGS=")
	out, err := cmd.Output()
	if err != nil {
		return "", false, err
	}
	sum := sha256.Sum256(out)
	lines := strings.Split(string(out), "\n")
	return hex.EncodeToString(sum[:8]), len(lines) > 6 && lines[6] == "1", nil
}

// copyTree copies the regular files and directories under src into dst,
// following no symbolic link.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case !d.Type().IsRegular():
			return nil
		}
		in, err := os.Open(path)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			if errors.Is(err, fs.ErrExist) {
				return nil
			}
			return err
		}
		_, err = io.Copy(out, in)
		return errors.Join(err, out.Close())
	})
}

// fetchCommand runs the suite's fetch command for side s: with the network
// and the repository's module cache writable, in an empty directory of the
// job's, without the worktree. It is the operator's command from the
// config, so the module cache may take what it downloads.
func (c *jobCaches) fetchCommand(ctx context.Context, suite *config.Suite, s *side, vr *variantRun, opts Options) (*provenance.Failure, error) {
	gocache, err := c.sideCache(s.name)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(c.dir, "fetch-")
	if err != nil {
		return nil, err
	}
	defer removeTree(dir)
	if err := os.Chmod(dir, 0o755); err != nil {
		return nil, err
	}
	cmd := config.Expand(suite.Fetch, nil, vr.builtin(s, 0))
	res, err := opts.Sandbox.Run(ctx, sandbox.Spec{
		Argv: []string{"/bin/sh", "-c", cmd}, Dir: dir, Env: setEnv(vr.env, c.env...),
		Timeout: durationOr(suite.BuildTimeout, config.DefaultBuildTimeout), MaxOutput: opts.MaxOutput,
		Network: sandbox.FullNetwork, Writable: []string{c.modCache, gocache, dir},
	})
	if err != nil {
		return nil, fmt.Errorf("suite %s: fetch %s: %w", suite.Name, s.name, err)
	}
	if res.OK() {
		return nil, nil
	}
	return &provenance.Failure{Variant: s.name, Stage: "build", Limit: res.Limit, LogTail: tailOf(res, 30),
		Message: fmt.Sprintf("suite %s: fetch exited with status %d", suite.Name, res.ExitCode)}, nil
}

// modCacheRunner binds the repository's module cache read-only into every
// command that does not write it (the fetch steps do), so that builds find
// the modules GOMODCACHE names although the cache directory is hidden. A
// command in a session gets what its session was started with.
type modCacheRunner struct {
	sandbox.Runner
	dir string
}

// Unwrap returns the Runner it wraps (sessions look through it).
func (m modCacheRunner) Unwrap() sandbox.Runner { return m.Runner }

// Run runs spec with the module cache added to its read-only paths.
func (m modCacheRunner) Run(ctx context.Context, spec sandbox.Spec) (*sandbox.Result, error) {
	if spec.Session == nil && !slices.Contains(spec.Writable, m.dir) && !slices.Contains(spec.ReadOnly, m.dir) {
		spec.ReadOnly = append(append([]string(nil), spec.ReadOnly...), m.dir)
	}
	return m.Runner.Run(ctx, spec)
}
