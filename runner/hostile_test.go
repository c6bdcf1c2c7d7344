package runner

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/internal/gitrepo"
	"github.com/perfbot/perfbot/sandbox"
)

// hostileToken stands for a token in perfbot's environment.
const hostileToken = "ghp_HostileRunnerToken0123456789abcdefXYZ"

// benchLine is what every hostile benchmark prints, so that its run
// succeeds and the attack hides behind a working benchmark.
const benchLine = `echo "BenchmarkHostile 1 100 ns/op"`

// plantPrelude is the start of a hostile bench.sh: it finds the worktree's
// git dir and the bare clone's objects from the .git file (the sandbox
// need not be able to read them: git on the host will) and
// defines mkgit, which makes a git dir at $1 that borrows those objects,
// has the worktree's HEAD and index (or an unborn branch when it cannot
// read them), an evil.sh that dumps its environment into the marker
// directory, and the config in $2.
const plantPrelude = `set -u
W=$PWD
GD=$(sed -n 's/^gitdir: //p' .git 2>/dev/null || true)
OBJ=${GD%/worktrees/*}/objects
mkgit() {
	d=$1
	mkdir -p "$d/objects/info" "$d/refs/heads"
	echo "$OBJ" > "$d/objects/info/alternates"
	cp "$GD/HEAD" "$d/HEAD" 2>/dev/null || echo "ref: refs/heads/main" > "$d/HEAD"
	cp "$GD/index" "$d/index" 2>/dev/null || true
	printf '#!/bin/sh\nenv > %s/ran-$$\nexit 0\n' "$MARKER" > "$d/evil.sh"
	chmod 755 "$d/evil.sh"
	printf '[core]\n\trepositoryformatversion = 0\n\tbare = false\n%s\n' "$2" > "$d/config"
}
`

// hostileCases are benchmarks that plant a way for the next git run in
// their worktree to run evil.sh on the host.
var hostileCases = []struct {
	name string
	// plant is shell run in the worktree by the benchmark.
	plant string
	// discarded says the next run must find the worktree changed.
	discarded bool
}{
	{"gitfile points at a planted git dir with core.fsmonitor", `mkgit "$W/.x" "	fsmonitor = $W/.x/evil.sh"
echo "gitdir: $W/.x" > .git`, true},
	{".git made a directory with core.fsmonitor", `rm -f .git
mkgit "$W/.git" "	fsmonitor = $W/.git/evil.sh"`, true},
	{".git made a symbolic link to a planted git dir", `mkgit "$W/.x" "	fsmonitor = $W/.x/evil.sh"
rm -f .git
ln -s .x .git`, true},
	{"core.hooksPath", `mkgit "$W/.x" "	hooksPath = $W/.x/myhooks"
mkdir -p .x/myhooks
for h in post-checkout pre-commit post-commit applypatch-msg pre-applypatch post-applypatch post-rewrite reference-transaction; do
	cp .x/evil.sh .x/myhooks/$h
done
echo "gitdir: $W/.x" > .git`, true},
	{"hooks in a planted git dir", `mkgit "$W/.x" ""
mkdir -p .x/hooks
for h in post-checkout pre-commit post-commit applypatch-msg pre-applypatch post-applypatch post-rewrite reference-transaction; do
	cp .x/evil.sh .x/hooks/$h
done
echo "gitdir: $W/.x" > .git`, true},
	// Without objects, git fetches what it misses from the promisor
	// remote over ssh, through core.sshCommand.
	{"core.sshCommand with an ssh promisor remote", `mkgit "$W/.x" "	sshCommand = $W/.x/evil.sh
[remote \"origin\"]
	url = ssh://example.invalid/x
	promisor = true
[extensions]
	partialClone = origin"
sed -i 's/repositoryformatversion = 0/repositoryformatversion = 1/' .x/config
rm .x/objects/info/alternates
echo "gitdir: $W/.x" > .git`, true},
	{".gitattributes filter with a driver in a planted config", `mkgit "$W/.x" "[filter \"evil\"]
	clean = $W/.x/evil.sh
	smudge = $W/.x/evil.sh
	process = $W/.x/evil.sh
	required = true"
printf '* filter=evil\n' > .gitattributes
mkdir -p .x/info && printf '* filter=evil\n' > .x/info/attributes
echo "gitdir: $W/.x" > .git`, true},
	{"includeIf pulls in core.fsmonitor", `mkgit "$W/.x" "[includeIf \"gitdir:/\"]
	path = $W/.x/inc.cfg"
printf '[core]\n\tfsmonitor = %s/.x/evil.sh\n' "$W" > .x/inc.cfg
echo "gitdir: $W/.x" > .git`, true},
	{"hard links to root-owned files of the git dir", `ln "$GD/HEAD" head-link 2>/dev/null || true
ln "$GD/../../config" config-link 2>/dev/null || true
ln "$GD/gitdir" .git.new 2>/dev/null && mv -f .git.new .git || true
printf '* filter=evil\n' > .gitattributes`, false},
}

// hostileSandbox is the real bubblewrap sandbox, as perfbot runs it as
// root; the test is skipped without bwrap or root.
func hostileSandbox(t *testing.T) (sandbox.Runner, []string) {
	t.Helper()
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bwrap is not installed (Debian: apt-get install bubblewrap)")
	}
	if os.Geteuid() != 0 {
		t.Skip("the hostile-patch tests run the sandbox as perfbot runs it, as root")
	}
	b := &sandbox.Bubblewrap{}
	if err := b.Check(context.Background()); err != nil {
		t.Skipf("bubblewrap cannot run here: %v", err)
	}
	t.Setenv("GITHUB_TOKEN", hostileToken)
	t.Setenv("PERFBOT_WEBHOOK_SECRET", hostileToken)
	env, err := sandbox.Environ(os.Environ(), sandbox.BaseEnv, []string{"HOME=/tmp"})
	if err != nil {
		t.Fatal(err)
	}
	return b, env
}

// markerDir is a world-writable directory outside every worktree: a
// planted script that runs writes its environment there.
func markerDir(t *testing.T) string {
	t.Helper()
	d := t.TempDir()
	if err := os.Chmod(d, 0o777); err != nil {
		t.Fatal(err)
	}
	return d
}

func assertNothingRan(t *testing.T, marker string) {
	t.Helper()
	entries, _ := os.ReadDir(marker)
	for _, e := range entries {
		data, _ := os.ReadFile(filepath.Join(marker, e.Name()))
		leak := ""
		if bytes.Contains(data, []byte(hostileToken)) {
			leak = " WITH THE TOKEN"
		}
		t.Errorf("a planted script ran on the host%s: %s\n%s", leak, e.Name(), data)
	}
}

func shSuite() []config.Suite {
	zero := 0
	return []config.Suite{{Name: "sh", Command: "sh bench.sh", Parser: "gobench", Count: 1, Warmup: &zero, BenchFiles: []string{"bench.sh"}}}
}

// TestHostilePatchPlantsGit runs, for each way to plant a git dir, config
// or hook, a patch whose benchmark plants it in its worktree (and, laid
// over, in the baseline's), then a trusted run on the same cache. Nothing
// planted may run, and the trusted run must still work.
func TestHostilePatchPlantsGit(t *testing.T) {
	sb, env := hostileSandbox(t)
	for _, c := range hostileCases {
		t.Run(c.name, func(t *testing.T) {
			marker := markerDir(t)
			r := gitrepo.New(t)
			r.Commit("bench", map[string]string{"bench.sh": benchLine + "\n", "README": "x\n"})
			script := "MARKER=" + marker + "\n" + plantPrelude + c.plant + "\n" + benchLine + "\n"
			patch := r.Patch("a faster benchmark", map[string]string{"bench.sh": script}, true)
			opts := Options{Decide: decideBy(compare.Options{}), Repo: r.Dir, Base: "HEAD", Suites: shSuite(), CacheDir: t.TempDir(), Sandbox: sb, SandboxName: "bubblewrap", Env: env}

			var progress bytes.Buffer
			opts.Progress = &progress
			opts.Candidates = []Candidate{{Name: "patch", Patch: patch}}
			out, err := Run(context.Background(), opts)
			if err != nil {
				t.Fatalf("hostile run: %v\n%s", err, progress.String())
			}
			if len(out.Results) != 2 {
				t.Fatalf("hostile run: %d results, want one per side; failures %+v", len(out.Results), out.Failures)
			}
			assertNothingRan(t, marker)

			// The next job on the same cache, trusted: the baseline
			// against itself, and the patch once more.
			for _, cand := range []Candidate{{Name: "patch", Ref: "HEAD"}, {Name: "patch", Patch: patch}} {
				progress.Reset()
				opts.Candidates = []Candidate{cand}
				out, err = Run(context.Background(), opts)
				if err != nil {
					t.Fatalf("run after the hostile one: %v\n%s", err, progress.String())
				}
				if len(out.Failures) > 0 || len(out.Results) != 2 {
					t.Fatalf("run after the hostile one: %d results, failures %+v\n%s", len(out.Results), out.Failures, progress.String())
				}
				if c.discarded && cand.Ref != "" && !strings.Contains(progress.String(), "discarded and made anew") {
					t.Errorf("the changed worktree was not reported as discarded:\n%s", progress.String())
				}
				assertNothingRan(t, marker)
			}
		})
	}
}

// TestGitEnvironmentHasNoSecret runs the real git with the environment
// perfbot gives it and an alias that prints it.
func TestGitEnvironmentHasNoSecret(t *testing.T) {
	t.Setenv("GITHUB_TOKEN", hostileToken)
	t.Setenv("GIT_CONFIG_PARAMETERS", "'core.fsmonitor'='/bin/false'")
	t.Setenv("GIT_DIR", "/nonexistent")
	out, err := runGit(context.Background(), t.TempDir(), gitEnv(), "-c", "alias.showenv=!env", "showenv")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, hostileToken) {
		t.Fatalf("git's environment holds the token:\n%s", out)
	}
	for _, line := range strings.Split(out, "\n") {
		name, _, _ := strings.Cut(line, "=")
		switch {
		case strings.HasPrefix(name, "GIT_"), name == "PATH", name == "LC_ALL", name == "HOME", name == "PWD", name == "SHLVL", name == "_", name == "OLDPWD":
		default:
			t.Errorf("git got host variable %s", name)
		}
		// git passes its own -c options on in GIT_CONFIG_PARAMETERS.
		if strings.Contains(line, "/bin/false") || line == "GIT_DIR=/nonexistent" {
			t.Errorf("git got perfbot's %s", line)
		}
	}
}

// TestWorktreeTamperedIsRebuilt changes a worktree's .git the ways a
// benchmark could and checks that the next checkout discards it, runs
// nothing planted, and leaves a working worktree.
func TestWorktreeTamperedIsRebuilt(t *testing.T) {
	r := gitrepo.New(t)
	commit := r.Commit("one", map[string]string{"a.txt": "one\n"})
	ctx := context.Background()
	for _, c := range []struct {
		name   string
		tamper func(t *testing.T, dir, gitDir, evil string)
	}{
		{"gitdir elsewhere", func(t *testing.T, dir, gitDir, evil string) {
			plantGitDir(t, filepath.Join(dir, ".x"), gitDir, evil)
			writeFile(t, filepath.Join(dir, ".git"), "gitdir: "+filepath.Join(dir, ".x")+"\n")
		}},
		{"trailing garbage", func(t *testing.T, dir, gitDir, evil string) {
			writeFile(t, filepath.Join(dir, ".git"), "gitdir: "+gitDir+"\n\n")
		}},
		{"directory", func(t *testing.T, dir, gitDir, evil string) {
			os.Remove(filepath.Join(dir, ".git"))
			plantGitDir(t, filepath.Join(dir, ".git"), gitDir, evil)
		}},
		{"symbolic link", func(t *testing.T, dir, gitDir, evil string) {
			plantGitDir(t, filepath.Join(dir, ".x"), gitDir, evil)
			os.Remove(filepath.Join(dir, ".git"))
			if err := os.Symlink(".x", filepath.Join(dir, ".git")); err != nil {
				t.Fatal(err)
			}
		}},
		{"hard link", func(t *testing.T, dir, gitDir, evil string) {
			if err := os.Link(filepath.Join(dir, ".git"), filepath.Join(t.TempDir(), "link")); err != nil {
				t.Skipf("no hard link across directories here: %v", err)
			}
		}},
		{"git dir taken by another tree", func(t *testing.T, dir, gitDir, evil string) {
			writeFile(t, filepath.Join(dir, ".git"), "gitdir: "+filepath.Join(filepath.Dir(gitDir), "elsewhere")+"\n")
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			marker := markerDir(t)
			evil := filepath.Join(t.TempDir(), "evil.sh")
			writeFile(t, evil, "#!/bin/sh\ntouch "+filepath.Join(marker, "ran")+"\n")
			if err := os.Chmod(evil, 0o755); err != nil {
				t.Fatal(err)
			}
			ws, err := OpenWorkspace(ctx, r.Dir, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			defer ws.Close()
			var progress bytes.Buffer
			ws.Progress = &progress
			first, err := ws.checkout(ctx, "base", commit)
			if err != nil {
				t.Fatal(err)
			}
			c.tamper(t, first.dir, first.gitDir, evil)
			again, err := ws.checkout(ctx, "base", commit)
			if err != nil {
				t.Fatalf("checkout after tampering: %v", err)
			}
			if !strings.Contains(progress.String(), "discarded and made anew") {
				t.Errorf("tampered worktree reused; progress:\n%s", progress.String())
			}
			if _, problem := ws.intact(again.dir); problem != "" {
				t.Errorf("rebuilt worktree is not intact: %s", problem)
			}
			if data, _ := os.ReadFile(filepath.Join(again.dir, "a.txt")); string(data) != "one\n" {
				t.Errorf("a.txt = %q in the rebuilt worktree", data)
			}
			assertNothingRan(t, marker)
		})
	}
}

// plantGitDir makes a git dir at d that borrows the objects of the real
// git dir and sets core.fsmonitor and hooks to evil.
func plantGitDir(t *testing.T, d, gitDir, evil string) {
	t.Helper()
	common, err := os.ReadFile(filepath.Join(gitDir, "commondir"))
	if err != nil {
		t.Fatal(err)
	}
	objects := filepath.Join(gitDir, strings.TrimSpace(string(common)), "objects")
	head, _ := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	writeFile(t, filepath.Join(d, "objects", "info", "alternates"), objects+"\n")
	writeFile(t, filepath.Join(d, "HEAD"), string(head))
	writeFile(t, filepath.Join(d, "config"), fmt.Sprintf("[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tfsmonitor = %s\n\thooksPath = %s\n", evil, filepath.Dir(evil)))
	if err := os.MkdirAll(filepath.Join(d, "refs"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"post-checkout", "reference-transaction"} {
		if err := os.Link(evil, filepath.Join(filepath.Dir(evil), h)); err != nil && !os.IsExist(err) {
			t.Fatal(err)
		}
	}
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestHostileTestFileLinkedToDevZero sends a patch that adds zero_test.go
// as a symbolic link to /dev/zero: perfbot must neither read it nor lay it
// over the baseline, and must say why.
func TestHostileTestFileLinkedToDevZero(t *testing.T) {
	r := newWorkRepo(t, true)
	if err := os.Symlink("/dev/zero", filepath.Join(r.Dir, "work", "zero_test.go")); err != nil {
		t.Fatal(err)
	}
	r.Git("add", "-A")
	patch := filepath.Join(t.TempDir(), "zero.patch")
	if err := os.WriteFile(patch, []byte(r.Git("diff", "--cached", "--binary")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.Git("reset", "-q", "--hard")
	// What is tested is perfbot's own read on the host; the sandbox
	// plays no part in it, and a Go build under a fresh sandbox cache
	// takes minutes, so the commands run unsandboxed with the warm cache.
	opts := testOptions(t, r.Dir, Candidate{Name: "patch", Patch: patch})
	opts.Suites[0].Count = 2
	out, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	want := "work/zero_test.go: is a symbolic link to /dev/zero; perfbot reads only regular files a patch adds"
	var refused bool
	for _, f := range out.Failures {
		if f.Variant == "patch" && f.Stage == "build" && strings.Contains(f.Message, want) {
			refused = true
		}
		if f.Variant == "base" {
			t.Errorf("the baseline failed: %+v", f)
		}
	}
	if !refused {
		t.Errorf("failures %+v do not say %q", out.Failures, want)
	}
	if !strings.Contains(strings.Join(out.Warnings, "\n"), "work/zero_test.go is a symbolic link in the patch and was not laid over the baseline") {
		t.Errorf("warnings %q do not say the link was left out of the overlay", out.Warnings)
	}
	if len(medians(out.Results)["base Work"]) != 2 {
		t.Errorf("the baseline should still be measured: %v", keys(medians(out.Results)))
	}
}

// TestHostileResultFile makes a command suite's result file a symbolic
// link, a huge file, or a path that climbs out of the worktree.
func TestHostileResultFile(t *testing.T) {
	sb, env := hostileSandbox(t)
	for _, c := range []struct {
		name, output, plant, want string
	}{
		{"symbolic link to /dev/zero", "file:out.txt", "ln -sf /dev/zero out.txt", "result file out.txt: is a symbolic link to /dev/zero"},
		{"symbolic link to a secret", "file:out.txt", "ln -sf /etc/shadow out.txt", "result file out.txt: is a symbolic link to /etc/shadow"},
		{"symbolic link on the way", "file:res/out.txt", "mkdir -p /tmp/res && " + benchLine + " > /tmp/res/out.txt && ln -sfn /tmp/res res", "result file res/out.txt: res on its way is a symbolic link to /tmp/res"},
		{"named pipe", "file:out.txt", "mkfifo out.txt", "result file out.txt: is a named pipe"},
		{"larger than the limit", "file:out.txt", "truncate -s 100M out.txt", "result file out.txt: is 100 MiB, more than the 64 MiB"},
		{"path out of the worktree", "file:../out.txt", "true", `result file ../out.txt: climbs out of the tree with ".."`},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := gitrepo.New(t)
			r.Commit("bench", map[string]string{"bench.sh": benchLine + " > out.txt\n"})
			patch := r.Patch("hostile", map[string]string{"bench.sh": c.plant + "\n"}, false)
			suites := shSuite()
			suites[0].Output = c.output
			opts := Options{Decide: decideBy(compare.Options{}), Repo: r.Dir, Base: "HEAD", Suites: suites, CacheDir: t.TempDir(), Sandbox: sb, Env: env,
				Candidates: []Candidate{{Name: "patch", Patch: patch}}}
			suites[0].BenchFiles = nil
			out, err := Run(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			var msgs []string
			for _, f := range out.Failures {
				if f.Variant == "patch" {
					msgs = append(msgs, f.Message)
				}
			}
			if !strings.Contains(strings.Join(msgs, "\n"), c.want) {
				t.Errorf("patch failures %q do not say %q", msgs, c.want)
			}
		})
	}
}
