package job

import (
	"context"
	"errors"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/internal/gitrepo"
	"github.com/perfbot/perfbot/job/jobspec"
	"github.com/perfbot/perfbot/runner"
)

// needBubblewrap skips a test that needs root and bubblewrap where they
// are missing (CI has both).
func needBubblewrap(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("the sandbox user is tested as root")
	}
	for _, tool := range []string{"bwrap", "go", "gcc"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is not installed", tool)
			}
			t.Skip(tool + " is not installed")
		}
	}
}

// patchOf commits files on top of the repository's head, returns the
// commit as a mail-formatted patch and takes the commit back.
func patchOf(r *gitrepo.Repo, msg string, files map[string]string) string {
	head := r.Git("rev-parse", "HEAD")
	r.Commit(msg, files)
	patch := r.Git("format-patch", "-1", "--stdout") + "\n"
	r.Git("reset", "-q", "--hard", head)
	return patch
}

// cgoModule is a Go module whose benchmark calls C code from a header
// outside its package (-I${SRCDIR}/../include): Go's build cache keys the
// package's object on its own files, not on that header.
func cgoModule(header string) map[string]string {
	return map[string]string{
		"go.mod":        "module example.com/cg\n\ngo 1.22\n",
		"include/val.h": header,
		"cg/cg.go":      "package cg\n\n/*\n#cgo CFLAGS: -I${SRCDIR}/../include\n#include \"val.h\"\n*/\nimport \"C\"\n\n// Val returns what the header's C function returns.\nfunc Val() int { return int(C.val()) }\n",
		"cg/cg_test.go": "package cg\n\nimport \"testing\"\n\nfunc BenchmarkVal(b *testing.B) {\n\tfor b.Loop() {\n\t\tif Val() == 0 {\n\t\t\tb.Fatal(\"zero\")\n\t\t}\n\t}\n}\n",
		"README":        "cg\n",
	}
}

const honestHeader = "static int val(void) { return 1; }\n"

// hostileHeader is what a patch puts in the header: C code that marks
// the directory it runs in and is a thousand times slower.
const hostileHeader = `#include <stdio.h>
#include <unistd.h>
static int val(void) {
	FILE *f = fopen("ATTACKER_CODE_RAN", "a");
	if (f) { fputs("x", f); fclose(f); }
	usleep(1000);
	return 2;
}
`

// TestHostileCgoHeaderDoesNotReachLaterJob: a patch that changes only a
// header outside its package is built at the patch worktree's fixed path;
// a later job on the same cache directory, whose patch changes nothing
// that is built, must build its own object from the honest header, not
// link the hostile one: no attacker code runs in it and no verdict moves.
// With one build cache shared by every job the later job linked the
// hostile object (Go does not hash a header outside the package).
func TestHostileCgoHeaderDoesNotReachLaterJob(t *testing.T) {
	needBubblewrap(t)
	r := gitrepo.New(t)
	r.Commit("cg", cgoModule(honestHeader))
	hostile := patchOf(r, "include: a faster val", map[string]string{"include/val.h": hostileHeader})
	noop := patchOf(r, "README: say more", map[string]string{"README": "cg, a cgo benchmark\n"})
	cache := openDir(t, visibleRoot(t))
	opts := Options{Repo: r.Dir, CacheDir: cache, Tune: Tuning{Instrument: config.InstrumentWallTime, Count: 2, Benchtime: "20x"}}

	if _, err := Run(context.Background(), jobspec.Spec{Key: "hostile", Patch: hostile, Source: "cli"}, opts); err != nil {
		t.Fatalf("hostile job: %v", err)
	}
	out, err := Run(context.Background(), jobspec.Spec{Key: "trusted", Patch: noop, Source: "cli"}, opts)
	if err != nil {
		t.Fatalf("trusted job: %v", err)
	}
	for _, name := range []string{"base", "patch"} {
		marker := filepath.Join(cache, "repos")
		matches, _ := filepath.Glob(filepath.Join(marker, "*", "wt", name, "cg", "ATTACKER_CODE_RAN"))
		if len(matches) > 0 {
			t.Errorf("the hostile header's C code ran in the later job's %s worktree (%s)", name, matches[0])
		}
	}
	if len(out.Comparison.Failures) > 0 {
		t.Fatalf("trusted job failed: %+v", out.Comparison.Failures)
	}
	checked := 0
	for _, row := range out.Comparison.Rows {
		for _, c := range row.Candidates {
			if (row.Unit == "ns/op" || row.Unit == "sec/op") && c.Ratio > 0 {
				checked++
				// The hostile code is a thousand times slower; an
				// unchanged function on a loaded host is not.
				if c.Ratio > 10 {
					t.Errorf("%s: the no-op patch is %.0fx slower: it linked the hostile object", row.Benchmark, c.Ratio)
				}
			}
		}
	}
	if checked == 0 {
		t.Fatalf("no time compared: %+v", out.Comparison.Rows)
	}
}

// TestDeepCacheChainDoesNotBreakNextJob: a build step that leaves a
// directory chain deeper than PATH_MAX in its build cache breaks nothing
// for the next job on the same cache directory. With a shared build cache
// every later job failed at its first build ("file name too long").
func TestDeepCacheChainDoesNotBreakNextJob(t *testing.T) {
	needBubblewrap(t)
	r := gitrepo.New(t)
	r.Commit("sh", map[string]string{"bench.sh": "echo BenchmarkOne 1 100 ns/op\n", "README": "x\n"})
	// 600 levels of 10 characters: 6600 bytes of path, past PATH_MAX
	// (4096), made one directory at a time.
	deep := `cd "$GOCACHE" && i=0; while [ $i -lt 600 ]; do mkdir -p dddddddddd && cd -P dddddddddd || exit 1; i=$((i+1)); done; echo planted`
	cfg := shConfig(t, r.Dir, deep)
	cache := openDir(t, visibleRoot(t))
	opts := Options{Repo: r.Dir, CacheDir: cache, Config: cfg, Tune: Tuning{Count: 2}}
	noop := patchOf(r, "README", map[string]string{"README": "y\n"})
	out, err := Run(context.Background(), jobspec.Spec{Key: "deep", Patch: noop, Source: "cli"}, opts)
	if err != nil {
		t.Fatalf("job that plants the chain: %v", err)
	}
	for _, f := range out.Comparison.Failures {
		if f.Variant == "base" {
			t.Fatalf("the planting build failed, the test plants nothing: %+v", f)
		}
	}
	cfg2 := shConfig(t, r.Dir, "echo built")
	opts.Config = cfg2
	out, err = Run(context.Background(), jobspec.Spec{Key: "next", Patch: noop, Source: "cli"}, opts)
	if err != nil {
		t.Fatalf("next job: %v", err)
	}
	if len(out.Comparison.Failures) > 0 || !out.Compared() {
		t.Fatalf("next job failed: %+v", out.Comparison.Failures)
	}
	// Nothing perfbot keeps is left that a walk by path cannot get
	// through: the chain went with its job's cache.
	err = filepath.WalkDir(cache, func(path string, d fs.DirEntry, err error) error { return err })
	if err != nil {
		t.Errorf("the cache directory cannot be walked after the next job: %.300v", err)
	}
}

// TestBuildStepCannotPoisonCaches: a build step writes into the module
// cache and the build cache its environment names; the build step of a
// later job on the same cache directory, and of the other side of the same
// job, finds neither file. With the shared caches both were there.
func TestBuildStepCannotPoisonCaches(t *testing.T) {
	needBubblewrap(t)
	r := gitrepo.New(t)
	r.Commit("sh", map[string]string{"bench.sh": "echo BenchmarkOne 1 100 ns/op\n", "README": "x\n"})
	// Each side looks for what the other wrote before it plants its own.
	look := `for f in "$GOMODCACHE/poison" "$GOCACHE/poison"; do if [ -e "$f" ]; then echo "found $f"; exit 1; fi; done`
	plant := look + `; touch "$GOMODCACHE/poison" "$GOCACHE/poison" 2>/dev/null; echo planted`
	cache := openDir(t, visibleRoot(t))
	noop := patchOf(r, "README", map[string]string{"README": "y\n"})
	opts := Options{Repo: r.Dir, CacheDir: cache, Config: shConfig(t, r.Dir, plant), Tune: Tuning{Count: 2}}
	out, err := Run(context.Background(), jobspec.Spec{Key: "plant", Patch: noop, Source: "cli"}, opts)
	if err != nil {
		t.Fatalf("planting job: %v", err)
	}
	if len(out.Comparison.Failures) > 0 {
		t.Errorf("a side of the planting job found the other side's file: %+v", out.Comparison.Failures)
	}
	opts.Config = shConfig(t, r.Dir, look)
	out, err = Run(context.Background(), jobspec.Spec{Key: "trusted", Patch: noop, Source: "cli"}, opts)
	if err != nil {
		t.Fatalf("later job: %v", err)
	}
	if len(out.Comparison.Failures) > 0 {
		t.Errorf("the later job found the earlier job's files: %+v", out.Comparison.Failures)
	}
}

// TestBuildStepCannotReachHostLoopback: a build step gets its own network
// namespace, as a benchmark does: a listener on the host's 127.0.0.1 gets
// no connection from it.
func TestBuildStepCannotReachHostLoopback(t *testing.T) {
	needBubblewrap(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var accepted atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	r := gitrepo.New(t)
	r.Commit("sh", map[string]string{"bench.sh": "echo BenchmarkOne 1 100 ns/op\n", "README": "x\n"})
	build := "bash -c 'echo hello > /dev/tcp/127.0.0.1/" + strconv.Itoa(port) + "' && echo CONNECTED || echo refused"
	cfg := shConfig(t, r.Dir, build)
	opts := Options{Repo: r.Dir, CacheDir: openDir(t, visibleRoot(t)), Config: cfg, Tune: Tuning{Count: 2}}
	noop := patchOf(r, "README", map[string]string{"README": "y\n"})
	if _, err := Run(context.Background(), jobspec.Spec{Key: "net", Patch: noop, Source: "cli"}, opts); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // let the accept loop count a late connection
	if n := accepted.Load(); n > 0 {
		t.Errorf("a build step connected %d times to a listener on the host's 127.0.0.1", n)
	}
}

// TestDiskBudget: a build step that writes past sandbox.disk ends the job
// with an error naming the setting.
func TestDiskBudget(t *testing.T) {
	needBubblewrap(t)
	r := gitrepo.New(t)
	r.Commit("sh", map[string]string{"bench.sh": "echo BenchmarkOne 1 100 ns/op\n", "README": "x\n"})
	cfg := shConfig(t, r.Dir, "head -c 40000000 /dev/urandom > big && echo wrote", "disk: 30MiB")
	opts := Options{Repo: r.Dir, CacheDir: openDir(t, visibleRoot(t)), Config: cfg, Tune: Tuning{Count: 2}}
	noop := patchOf(r, "README", map[string]string{"README": "y\n"})
	_, err := Run(context.Background(), jobspec.Spec{Key: "disk", Patch: noop, Source: "cli"}, opts)
	var de *runner.DiskBudgetError
	if !errors.As(err, &de) || !strings.Contains(err.Error(), "sandbox.disk") {
		t.Fatalf("err = %v, want the disk budget (sandbox.disk) named", err)
	}
}

// shConfig is a config with one command suite whose build step is build
// and whose benchmark prints one Go benchmark line; extra is added to its
// sandbox section.
func shConfig(t *testing.T, repo, build string, extra ...string) *config.Config {
	t.Helper()
	y := "project: {repo: " + repo + "}\nsandbox:\n  mode: bubblewrap\n"
	for _, e := range extra {
		y += "  " + e + "\n"
	}
	y += "suites:\n  sh:\n    build: |\n      " + build + "\n    command: sh bench.sh\n    parser: auto\n"
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatalf("%v\n%s", err, y)
	}
	return cfg
}
