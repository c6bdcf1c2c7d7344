package runner

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/internal/gitrepo"
)

// hostFile is a file outside every worktree, as root keeps it: a patch
// must never change its owner, mode (its set-user-ID bit) or content.
type hostFile struct {
	path     string
	uid, gid uint32
	mode     fs.FileMode
	data     string
}

// plantHostFile writes a root-owned file with the given group and mode
// (chmod'ed after the chown, so a set-user-ID bit stays).
func plantHostFile(t *testing.T, path, data string, gid uint32, mode fs.FileMode) hostFile {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(path, 0, int(gid)); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
	return hostFile{path: path, gid: gid, mode: mode, data: data}
}

// changed says how the file differs from what was planted, or "".
func (h hostFile) changed() string {
	fi, err := os.Lstat(h.path)
	if err != nil {
		return fmt.Sprintf("%s: %v", h.path, err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	var what []string
	if st.Uid != h.uid || st.Gid != h.gid {
		what = append(what, fmt.Sprintf("owner %d:%d, was %d:%d", st.Uid, st.Gid, h.uid, h.gid))
	}
	if fi.Mode() != h.mode {
		what = append(what, fmt.Sprintf("mode %v, was %v", fi.Mode(), h.mode))
	}
	if data, err := os.ReadFile(h.path); err != nil || string(data) != h.data {
		what = append(what, fmt.Sprintf("content %q (%v), was %q", data, err, h.data))
	}
	if len(what) == 0 {
		return ""
	}
	return h.path + ": " + strings.Join(what, ", ")
}

// waitScript is a command that says it runs (a file "running" in its
// directory) and waits until the test has looked at the host files (a
// file "go-on" beside it).
const waitScript = `touch running; i=0; while [ ! -e go-on ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done; rm -f running go-on; ` + benchLine

// runWatching runs opts and samples the host files all along: whenever a
// command started by waitScript is running in one of the directories
// matched by globs, the files are sampled before the command may go on.
// It fails the test for every change seen, and unless some command was
// sampled while it ran.
func runWatching(t *testing.T, opts Options, globs []string, files ...hostFile) (*Outcome, error) {
	t.Helper()
	var (
		out  *Outcome
		err  error
		done = make(chan struct{})
	)
	go func() {
		defer close(done)
		out, err = Run(context.Background(), opts)
	}()
	seen := map[string]bool{}
	var mu sync.Mutex
	sample := func() {
		for _, f := range files {
			if c := f.changed(); c != "" {
				mu.Lock()
				if !seen[c] {
					seen[c] = true
					t.Errorf("a host file changed: %s", c)
				}
				mu.Unlock()
			}
		}
	}
	during := 0
	for running := true; running; {
		select {
		case <-done:
			running = false
		case <-time.After(20 * time.Millisecond):
		}
		sample()
		for _, g := range globs {
			marks, _ := filepath.Glob(filepath.Join(g, "running"))
			for _, m := range marks {
				if _, err := os.Stat(filepath.Join(filepath.Dir(m), "go-on")); err == nil {
					continue
				}
				sample()
				during++
				_ = os.WriteFile(filepath.Join(filepath.Dir(m), "go-on"), nil, 0o644)
			}
		}
	}
	if during == 0 {
		t.Errorf("no command was seen running: the host files were not sampled while one ran")
	}
	return out, err
}

// symlinkPatch is a patch that replaces the directory dir of r's HEAD by
// a symbolic link to target.
func symlinkPatch(t *testing.T, r *gitrepo.Repo, dir, target string) string {
	t.Helper()
	head := r.Git("rev-parse", "HEAD")
	r.Git("rm", "-r", "-q", dir)
	if err := os.Symlink(target, filepath.Join(r.Dir, dir)); err != nil {
		t.Fatal(err)
	}
	r.Git("add", "-A")
	data := r.Git("diff", "--cached", "--binary") + "\n"
	r.Git("reset", "-q", "--hard", head)
	p := filepath.Join(t.TempDir(), "link.patch")
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// hostTree is a host directory holding a root:shadow 0640 file and a
// set-user-ID program, as /etc or /usr/bin would.
func hostTree(t *testing.T, dir string) []hostFile {
	t.Helper()
	return []hostFile{
		plantHostFile(t, filepath.Join(dir, "shadow"), "root:$6$secret:19000::::::\n", 42, 0o640),
		plantHostFile(t, filepath.Join(dir, "suid"), "#!/bin/sh\nexit 0\n", 0, 0o755|fs.ModeSetuid),
		plantHostFile(t, filepath.Join(dir, "out.txt"), "host data, not a result\n", 0, 0o644),
	}
}

func patchFailures(out *Outcome) string {
	var msgs []string
	for _, f := range out.Failures {
		if f.Variant == "patch" {
			msgs = append(msgs, f.Message)
		}
	}
	return strings.Join(msgs, "\n")
}

// TestHostileDirThroughSymlink: a patch makes a directory of the suite's
// dir: a symbolic link to a host directory, in the middle of the path
// (harness of harness/go) or as its only part. Root must neither lend
// that host directory to the sandbox user (its files' owner and set-ID
// bits), nor remove or read the output: file there; the patch's side is
// refused, naming the link, and the baseline is measured.
func TestHostileDirThroughSymlink(t *testing.T) {
	sb, env := hostileSandbox(t)
	for _, c := range []struct {
		name, dir, link string
	}{
		{"symlink in the middle of dir", "harness/go", "harness"},
		{"one-part dir that is a symlink", "harness", "harness"},
	} {
		t.Run(c.name, func(t *testing.T) {
			host := filepath.Join(t.TempDir(), "host")
			files := hostTree(t, filepath.Join(host, "go"))
			files = append(files, hostTree(t, host)...)
			for _, d := range []string{host, filepath.Join(host, "go")} {
				if err := os.Chmod(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			r := gitrepo.New(t)
			r.Commit("bench", map[string]string{c.dir + "/bench.sh": waitScript + " > out.txt\n", "README": "x\n"})
			// For harness/go, the host directory holds a go/ as the
			// worktree's harness did.
			target := host
			patch := symlinkPatch(t, r, c.link, target)
			zero := 0
			suites := []config.Suite{{Name: "sh", Dir: c.dir, Command: "sh bench.sh", Output: "file:out.txt", Parser: "gobench", Count: 1, Warmup: &zero}}
			cache := t.TempDir()
			opts := Options{Decide: decideBy(compare.Options{}), Repo: r.Dir, Base: "HEAD", Suites: suites, CacheDir: cache, Sandbox: sb, Env: env,
				Candidates: []Candidate{{Name: "patch", Patch: patch}}}
			out, err := runWatching(t, opts, []string{filepath.Join(cache, "repos", "*", "wt", "*", c.dir), filepath.Join(host, "go"), host}, files...)
			if err != nil {
				t.Fatalf("run: %v", err)
			}
			for _, f := range files {
				if ch := f.changed(); ch != "" {
					t.Errorf("after the run: %s", ch)
				}
			}
			var want string
			if c.dir == c.link {
				want = fmt.Sprintf("dir: %s: is a symbolic link to %s", c.dir, target)
			} else {
				want = fmt.Sprintf("dir: %s: %s on its way is a symbolic link to %s", c.dir, c.link, target)
			}
			if msgs := patchFailures(out); !strings.Contains(msgs, want) {
				t.Errorf("patch failures %q do not say %q", msgs, want)
			}
			if got := medians(out.Results); len(got) == 0 {
				t.Errorf("the baseline was not measured; failures %+v", out.Failures)
			}
		})
	}
}

// TestHostileVariantFilesThroughSymlink: a build step plants, in the
// variant's {datadir}, a symbolic link where a variant's files: entry
// goes, and a link to a host directory on the way to another. Root must
// not write through either; the link at the name is replaced by the file,
// the one on the way is refused and reported.
func TestHostileVariantFilesThroughSymlink(t *testing.T) {
	sb, env := hostileSandbox(t)
	host := filepath.Join(t.TempDir(), "host")
	files := hostTree(t, host)
	conf := plantHostFile(t, filepath.Join(host, "app.conf"), "host configuration\n", 0, 0o644)
	files = append(files, conf)
	if err := os.Chmod(host, 0o755); err != nil {
		t.Fatal(err)
	}
	r := gitrepo.New(t)
	r.Commit("bench", map[string]string{"bench.sh": waitScript + "\n", "README": "x\n"})
	zero := 0
	build := fmt.Sprintf("ln -sfn %s {datadir}/app.conf && mkdir -p {datadir}/etc && ln -sfn %s {datadir}/etc/conf.d", conf.path, host)
	suite := config.Suite{Name: "sh", Command: "sh bench.sh", Build: build, Parser: "gobench", Count: 1, Warmup: &zero,
		Variants: config.Variants{
			{Name: "base", Files: map[string]string{"app.conf": "threads=1\n"}},
			{Name: "tuned", Files: map[string]string{"app.conf": "threads=8\n", "etc/conf.d/out.txt": "threads=8\n"}},
		}}
	cache := t.TempDir()
	opts := Options{Decide: decideBy(compare.Options{}), Repo: r.Dir, Base: "HEAD", Suites: []config.Suite{suite}, CacheDir: cache, Sandbox: sb, Env: env}
	out, err := runWatching(t, opts, []string{filepath.Join(cache, "repos", "*", "wt", "*")}, files...)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	for _, f := range files {
		if ch := f.changed(); ch != "" {
			t.Errorf("after the run: %s", ch)
		}
	}
	var msgs []string
	for _, f := range out.Failures {
		msgs = append(msgs, f.Variant+": "+f.Message)
	}
	want := "tuned: suite sh: configuration files: files: etc/conf.d/out.txt: etc/conf.d on its way is a symbolic link to " + host
	if !strings.Contains(strings.Join(msgs, "\n"), want) {
		t.Errorf("failures %q do not say %q", msgs, want)
	}
	if _, ok := medians(out.Results)["BenchmarkHostile"]; !ok && len(out.Results) == 0 {
		t.Errorf("the base variant, whose link was replaced by its file, was not measured; failures %q", msgs)
	}
}
