package job

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/redact"
	"github.com/perfbot/perfbot/runner"
	"github.com/perfbot/perfbot/sandbox"
)

// hogSource allocates and touches as many MiB as its argument says.
const hogSource = `package main

import (
	"fmt"
	"os"
	"strconv"
)

func main() {
	mib, _ := strconv.Atoi(os.Args[1])
	var keep [][]byte
	for i := 0; i < mib; i++ {
		b := make([]byte, 1<<20)
		for j := range b {
			b[j] = byte(j)
		}
		keep = append(keep, b)
	}
	fmt.Println("touched", len(keep), "MiB")
}
`

// openDir returns a fresh directory the sandbox user may reach under
// root (a visibleRoot).
func openDir(t *testing.T, root string) string {
	t.Helper()
	dir, err := os.MkdirTemp(root, "d-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// visibleRoot makes a directory beside the test, which the test's
// commands are given read-only (Spec.ReadOnly): wherever the clone lives
// (under /tmp, which commands get a private copy of, or under /root or
// /home, which are hidden), they see its files as the host has them, and
// the hidden ones among them stay hidden.
func visibleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp(".", ".sandbox-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if dir, err = filepath.Abs(dir); err != nil {
		t.Fatal(err)
	}
	if dir, err = filepath.EvalSymlinks(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestSandboxFromConfig loads a config.yaml with limits and secrets the way
// perfbot compare does and runs hostile commands, which ask for no limit
// themselves, through the runner it builds: with cgroups and with the
// rlimit fallback (cgroup_parent: none).
func TestSandboxFromConfig(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the sandbox user and the hidden files are tested as root")
	}
	if _, err := exec.LookPath("bwrap"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("bubblewrap is not installed")
		}
		t.Skip("bubblewrap is not installed")
	}
	const token = "ghp_ConfigFileTestToken0123456789abc"
	visible := visibleRoot(t)
	secretDir := openDir(t, visible)
	tokenFile := filepath.Join(secretDir, "github-token")
	if err := os.WriteFile(tokenFile, []byte(token+"\n"), 0o644); err != nil { // world-readable by mistake
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(secretDir, "public"), []byte("public text"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The config names the token file through a symbolic link.
	linkDir := filepath.Join(openDir(t, visible), "secrets")
	if err := os.Symlink(secretDir, linkDir); err != nil {
		t.Fatal(err)
	}
	work := openDir(t, visible)
	hog := filepath.Join(work, "hog")
	src := filepath.Join(t.TempDir(), "hog.go")
	if err := os.WriteFile(src, []byte(hogSource), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("go", "build", "-o", hog, src).CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	storeFile := filepath.Join(openDir(t, visible), "perfbot.db")
	if err := os.WriteFile(storeFile, []byte("SQLite format 3\x00"+token), 0o644); err != nil {
		t.Fatal(err)
	}
	extra := openDir(t, visible)
	if err := os.WriteFile(filepath.Join(extra, "deploy.key"), []byte("extra secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("reached the host\n"))
			c.Close()
		}
	}()

	for _, mode := range []string{"", "none"} {
		name, uid := "cgroup", 0
		if mode == "none" {
			// RLIMIT_NPROC counts every process of the user on the host:
			// a user of its own keeps other sandboxes out of the count.
			name, uid = "rlimit", 23456
		}
		t.Run(name, func(t *testing.T) {
			cfgFile := filepath.Join(openDir(t, visible), "config.yaml")
			cfgText := fmt.Sprintf(`sandbox:
  memory: 256MiB
  processes: 64
  max_output: 1MiB
  max_file_size: 1MiB
  network: none
  cgroup_parent: %q
  uid: %d
  gid: %d
  hidden_paths: [%s]
venues:
  github:
    repo: acme/store
    token_file: %s
store:
  driver: sqlite
  path: %s
`, mode, uid, uid, extra, filepath.Join(linkDir, "github-token"), storeFile)
			if err := os.WriteFile(cfgFile, []byte(cfgText), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg, err := config.Load(cfgFile)
			if err != nil {
				t.Fatal(err)
			}
			opts := runner.Options{CacheDir: t.TempDir()}
			if _, err := setupSandbox(context.Background(), &opts, cfg, false); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(opts.SandboxName, "memory 256 MiB, processes 64, output 1 MiB, file size 1 MiB") {
				t.Errorf("SandboxName = %q, want the limits", opts.SandboxName)
			}
			runIt := func(script string) *sandbox.Result {
				t.Helper()
				res, err := opts.Sandbox.Run(context.Background(), sandbox.Spec{Argv: []string{"/bin/sh", "-c", script},
					Dir: work, Env: opts.Env, Timeout: 60 * time.Second, ReadOnly: []string{visible}})
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("%s: exit %d, limit %q, note %q\nstdout %.300s\nstderr %.300s", script, res.ExitCode, res.Limit, res.Note, res.Stdout, res.Stderr)
				return res
			}
			for _, c := range []struct{ script, limit, note string }{
				{hog + " 1024", sandbox.LimitMemory, "stopped by the memory limit (256 MiB"},
				{"b() { b | b & }; b; sleep 100", sandbox.LimitPids, "stopped by the process limit (64"},
				{"head -c 3145728 /dev/zero", sandbox.LimitOutput, "stdout cut at 1 MiB"},
				{"head -c 3145728 /dev/zero > big", sandbox.LimitFileSize, "stopped by the file-size limit (1 MiB)"},
			} {
				res := runIt(c.script)
				if res.Limit != c.limit || !strings.Contains(res.Note, c.note) {
					t.Errorf("%s: Limit %q, Note %q: want %s, %q", c.script, res.Limit, res.Note, c.limit, c.note)
				}
			}
			if res := runIt(hog + " 64"); !res.OK() {
				t.Errorf("64 MiB under a 256 MiB limit failed: %s", res.Stderr)
			}
			if fi, err := os.Stat(filepath.Join(work, "big")); err != nil || fi.Size() > 1<<20 {
				t.Errorf("big: %v, %v: want at most 1 MiB", fi, err)
			}

			// network: none reaches nothing on the host.
			res := runIt("exec bash -c 'cat < /dev/tcp/127.0.0.1/" + fmt.Sprint(l.Addr().(*net.TCPAddr).Port) + "'")
			if bytes.Contains(res.Stdout, []byte("reached the host")) || !bytes.Contains(res.Stderr, []byte("Connection refused")) {
				t.Error("the sandbox reached a listener on the host's 127.0.0.1, or did not try")
			}

			// Secrets: the config file, the store, the token file (by the
			// path given, by its real path, by the link), the extra hidden
			// path: none readable. The command prints what it reads
			// reversed, which the redactor does not know.
			var reads []string
			for _, p := range []string{cfgFile, storeFile, tokenFile, filepath.Join(linkDir, "github-token"), filepath.Join(extra, "deploy.key")} {
				reads = append(reads, "cat "+p+" | rev")
			}
			res = runIt(strings.Join(reads, "; ") + "; grep -rsl " + token[:12] + " " + filepath.Dir(cfgFile) + " " + secretDir + " " + filepath.Dir(storeFile))
			for _, leak := range []string{token, "token_file", "extra secret", "SQLite format"} {
				if bytes.Contains(res.Stdout, []byte(reverse(leak))) {
					t.Errorf("the sandbox read %q:\n%s", leak, res.Stdout)
				}
			}
			if bytes.Contains(res.Stdout, []byte("github-token")) || bytes.Contains(res.Stdout, []byte("config.yaml")) {
				t.Errorf("grep found the token in a file:\n%s", res.Stdout)
			}
			// A token that leaks anyway is redacted.
			res = runIt("echo " + token[:10] + "\"\"" + token[10:])
			if bytes.Contains(res.Stdout, []byte(token)) || !bytes.Contains(res.Stdout, []byte(redact.Mask)) {
				t.Errorf("the token assembled in the sandbox was not redacted: %s", res.Stdout)
			}
			// The test tests: a file beside them that is not hidden is
			// readable.
			if res := runIt("cat " + filepath.Join(secretDir, "public")); !bytes.Contains(res.Stdout, []byte("public text")) {
				t.Errorf("a file beside the secrets is unreadable too: %s", res.Stderr)
			}
		})
	}
}

func TestReadSecrets(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	key := write("app.pem", "-----BEGIN KEY-----\nsecretkeybody\n-----END KEY-----\n")
	pat := write("jira-pat", "jira-pat-value\n")
	cfg := write("config.yaml", fmt.Sprintf(`venues:
  github: {token_env: MY_GH_TOKEN, private_key_file: %s}
  jira: {user_env: JIRA_LOGIN, pat_file: %s}
store: {driver: postgres, url_env: MY_DB_URL}
`, key, pat))
	s, err := ReadSecrets(cfg, []string{"MY_GH_TOKEN=gh-token-value", "JIRA_LOGIN=perfbot", "MY_DB_URL=postgres://u:dbpass@h/x",
		"GITHUB_TOKEN=default-token", "OTHER_PRIVATE_KEY_FILE=" + write("other", "other-key-value"), "PATH=/bin"})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(s.Values, "|")
	for _, want := range []string{"gh-token-value", "postgres://u:dbpass@h/x", "default-token", "secretkeybody", "jira-pat-value", "other-key-value"} {
		if !strings.Contains(got, want) {
			t.Errorf("secrets %q lack %q", got, want)
		}
	}
	if strings.Contains(got, "perfbot") || strings.Contains(got, "/bin") {
		t.Errorf("secrets %q hold a user name or a path", got)
	}
	if files := strings.Join(s.Files, "|"); !strings.Contains(files, key) || !strings.Contains(files, pat) || !strings.Contains(files, filepath.Join(dir, "other")) {
		t.Errorf("secret files = %q", files)
	}
	if f := storeFiles(cfg); f != nil {
		t.Errorf("a postgres store has files %q", f)
	}
}

func reverse(s string) string {
	b := []byte(s)
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return string(b)
}
