package sandbox

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/perfbot/perfbot/redact"
)

// testToken stands for a venue token perfbot holds.
const testToken = "ghp_SandboxTestToken0123456789abcdefXYZ"

// hostEnv is the environment a benchmark gets: the host's, reduced to the
// allow list, while the host holds the token.
func hostEnv(t *testing.T, set ...string) []string {
	t.Helper()
	t.Setenv("GITHUB_TOKEN", testToken)
	t.Setenv("PERFBOT_CONFIG_TOKEN", testToken)
	env, err := Environ(os.Environ(), append(BaseEnv, GoEnv...), set)
	if err != nil {
		t.Fatal(err)
	}
	return env
}

func assertNoToken(t *testing.T, res *Result) {
	t.Helper()
	for _, out := range [][]byte{res.Stdout, res.Stderr} {
		if bytes.Contains(out, []byte(testToken)) {
			t.Fatalf("the token reached the sandbox:\n%s", out)
		}
	}
}

func TestHostileTokenFromEnvironment(t *testing.T) {
	b, dir := newSandbox(t)
	res := run(t, b, Spec{Dir: dir, Env: hostEnv(t), Argv: sh("env; cat /proc/self/environ")})
	assertNoToken(t, res)
	if !bytes.Contains(res.Stdout, []byte("HOME=/tmp")) {
		t.Errorf("environment not passed: %s", res.Stdout)
	}
	// A Spec carrying the token is refused before anything runs.
	g := Guard{Runner: b, Secrets: redact.New(testToken)}
	_, err := g.Run(context.Background(), Spec{Dir: dir, Env: []string{"T=" + testToken}, Argv: []string{"/bin/true"}})
	if err == nil || strings.Contains(err.Error(), testToken) || !strings.Contains(err.Error(), "variable T") {
		t.Errorf("Guard with a token in Env: err = %v, want a refusal naming T and not the token", err)
	}
	_, err = g.Run(context.Background(), Spec{Dir: dir, Argv: []string{"/bin/echo", base64.StdEncoding.EncodeToString([]byte(testToken))}})
	if err == nil {
		t.Error("Guard with the base64 token in Argv: no error")
	}
}

func TestHostileTokenFromConfigFile(t *testing.T) {
	b, dir := newSandbox(t)
	secrets := worktree(t)
	config := filepath.Join(secrets, "config.yaml")
	if err := os.WriteFile(config, []byte("github:\n  token: "+testToken+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	lone := filepath.Join(worktree(t), "perfbot.yaml") // a hidden file, not a directory
	if err := os.WriteFile(lone, []byte("token: "+testToken+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	b.HiddenPaths = []string{secrets}
	res := run(t, b, Spec{Dir: dir, HiddenPaths: []string{lone}, Argv: sh(
		"ls -la " + secrets + "; cat " + config + "; cat " + lone + "; grep -r " + testToken[:12] + " /etc /tmp " + secrets + " 2>/dev/null")})
	assertNoToken(t, res)
	if os.Geteuid() == 0 {
		// A root-only file outside the hidden paths is unreadable too: the
		// command does not run as root.
		private := filepath.Join(worktree(t), "root-only")
		if err := os.WriteFile(private, []byte(testToken), 0o600); err != nil {
			t.Fatal(err)
		}
		res := run(t, b, Spec{Dir: dir, Argv: sh("cat " + private)})
		assertNoToken(t, res)
		if res.ExitCode == 0 {
			t.Error("a root-only file was readable in the sandbox")
		}
	}
}

func TestHostileTokenFromProc1Environ(t *testing.T) {
	b, dir := newSandbox(t)
	res := run(t, b, Spec{Dir: dir, Env: hostEnv(t), Argv: sh(
		"ls /proc | grep -c '^[0-9]'; for p in /proc/[0-9]*; do cat $p/environ $p/cmdline; echo; done; cat /proc/1/environ")})
	assertNoToken(t, res)
	// The command sees its own PID namespace: a handful of processes, not
	// the host's.
	var n int
	fmt.Sscan(string(res.Stdout), &n)
	if n == 0 || n > 10 {
		t.Errorf("the sandbox sees %d processes, want its own few", n)
	}
}

func TestHostileTCPConnection(t *testing.T) {
	b, dir := newSandbox(t)
	probe := installHelper(t, dir)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	accepted := make(chan struct{}, 16)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			accepted <- struct{}{}
			c.Close()
		}
	}()
	env := []string{helperEnv + "=dial:" + l.Addr().String()}
	for _, n := range []Network{NoNetwork, Loopback} {
		res := run(t, b, Spec{Dir: dir, Env: env, Network: n, Argv: []string{probe}})
		if res.ExitCode == 0 || !bytes.Contains(res.Stdout, []byte("dial failed")) {
			t.Errorf("network %d: the sandbox reached the host's listener", n)
		}
	}
	select {
	case <-accepted:
		t.Fatal("the listener accepted a connection from the sandbox")
	default:
	}
	// The same probe with the network shared connects: the test tests.
	res := run(t, b, Spec{Dir: dir, Env: env, Network: FullNetwork, Argv: []string{probe}})
	if !bytes.Contains(res.Stdout, []byte("connected")) {
		t.Errorf("with FullNetwork the probe could not connect: %s", res.Stdout)
	}
	// Loopback gives the command its own loopback interface.
	res = run(t, b, Spec{Dir: dir, Env: []string{helperEnv + "=loopback"}, Network: Loopback, Argv: []string{probe}})
	if !bytes.Contains(res.Stdout, []byte("loopback pong")) {
		t.Errorf("the sandbox's own loopback does not work: %s", res.Stdout)
	}
}

func TestHostileUnixSocket(t *testing.T) {
	b, dir := newSandbox(t)
	if os.Geteuid() != 0 {
		t.Skip("placing a socket in /run needs root")
	}
	probe := installHelper(t, dir)
	sock := fmt.Sprintf("/run/perfbot-test-%d.sock", time.Now().UnixNano())
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := os.Chmod(sock, 0o777); err != nil {
		t.Fatal(err)
	}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	// A build step has the network, but not the host's /run either.
	for _, network := range []Network{NoNetwork, Loopback, FullNetwork} {
		res := run(t, b, Spec{Dir: dir, Network: network, Env: []string{helperEnv + "=unix:" + sock}, Argv: []string{probe}})
		if res.ExitCode == 0 {
			t.Errorf("network %d: the sandbox reached a host service through %s", network, sock)
		}
		res = run(t, b, Spec{Dir: dir, Network: network, Argv: sh("ls -A /run; getent hosts localhost >/dev/null && echo resolved")})
		if got := strings.TrimSpace(string(res.Stdout)); got != "resolved" {
			t.Errorf("network %d: want an empty /run and a working resolver, got %q (%s)", network, got, res.Stderr)
		}
	}
}

func TestHostileForkBomb(t *testing.T) {
	b, dir := newSandbox(t)
	mark := processMark(t)
	start := time.Now()
	// The bomb's own shell sleeps on, so the command ends by a limit even
	// when every fork has failed and the bomb's children have all died.
	res := run(t, b, Spec{Dir: dir, Env: []string{mark}, MaxProcs: 32, Timeout: 3 * time.Second, Argv: sh("b() { b | b & }; b; sleep 10")})
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("fork bomb took %s to contain", d)
	}
	if res.Limit != LimitPids && res.Limit != LimitTimeout && !strings.Contains(res.Note, "RLIMIT_NPROC") {
		t.Errorf("Limit = %q, want pids or timeout (or a note on RLIMIT_NPROC without cgroups)", res.Limit)
	}
	if res.Note == "" {
		t.Error("no note says how the fork bomb ended")
	}
	if left := waitMarkedProcs(t, mark); left > 0 {
		t.Errorf("%d sandbox processes outlived the command", left)
	}
}

func TestHostileWriteOutsideWorktree(t *testing.T) {
	b, dir := newSandbox(t)
	// A directory anyone may write on the host, outside /tmp (which the
	// sandbox replaces): the read-only root must stop the write.
	open, err := os.MkdirTemp(".", ".escape-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(open) })
	if open, err = filepath.Abs(open); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("perfbot-escape-%d", time.Now().UnixNano())
	targets := []string{
		filepath.Join(open, name),
		filepath.Join("/etc", name),
		filepath.Join("/usr", name),
		filepath.Join("/tmp", name),
		filepath.Join("/var/tmp", name),
		filepath.Join("/dev/shm", name),
		filepath.Join(filepath.Dir(dir), name),
	}
	script := "echo inside > ok.txt"
	for _, p := range targets {
		script += "; (echo escaped > " + p + ") && echo wrote " + p
	}
	res := run(t, b, Spec{Dir: dir, Argv: sh(script)})
	// The host directories are read-only or not there at all; /tmp,
	// /var/tmp and /dev/shm are the sandbox's own and vanish with it.
	for _, p := range targets[:3] {
		if bytes.Contains(res.Stdout, []byte("wrote "+p)) {
			t.Errorf("writing %s succeeded inside the sandbox", p)
		}
	}
	for _, p := range targets {
		if _, err := os.Stat(p); err == nil {
			os.Remove(p)
			t.Errorf("the sandbox wrote %s on the host", p)
		}
	}
	if got, err := os.ReadFile(filepath.Join(dir, "ok.txt")); err != nil || string(got) != "inside\n" {
		t.Errorf("the worktree was not writable: %q, %v (%s)", got, err, res.Stderr)
	}
	if os.Geteuid() == 0 {
		fi, err := os.Stat(filepath.Join(dir, "ok.txt"))
		if err == nil && ownerOf(fi) != 0 {
			t.Errorf("ok.txt is owned by %d after the run, want it given back to root", ownerOf(fi))
		}
	}
}

func TestHostileGigabyteOfOutput(t *testing.T) {
	b, dir := newSandbox(t)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res := run(t, b, Spec{Dir: dir, MaxOutput: 1 << 20, Argv: sh("head -c 1073741824 /dev/zero")})
	runtime.ReadMemStats(&after)
	if res.Limit != LimitOutput || len(res.Stdout) != 1<<20 || res.Dropped != 1<<30-1<<20 {
		t.Errorf("Limit %q, kept %d, dropped %d: want output, 1 MiB, 1 GiB - 1 MiB", res.Limit, len(res.Stdout), res.Dropped)
	}
	if !strings.Contains(res.Note, "stdout cut at 1 MiB") {
		t.Errorf("Note = %q, want it to say stdout was cut", res.Note)
	}
	if grown := int64(after.HeapInuse) - int64(before.HeapInuse); grown > 64<<20 {
		t.Errorf("heap grew by %d MiB while reading 1 GiB of output", grown>>20)
	}
}

func TestHostileNeverEnding(t *testing.T) {
	b, dir := newSandbox(t)
	mark := processMark(t)
	res := run(t, b, Spec{Dir: dir, Env: []string{mark}, Timeout: time.Second, Argv: sh("sleep 1000 & while :; do :; done")})
	if res.Limit != LimitTimeout || res.OK() {
		t.Errorf("Limit = %q, OK %v: want timeout", res.Limit, res.OK())
	}
	if res.Duration > 10*time.Second {
		t.Errorf("took %s to stop at a 1s timeout", res.Duration)
	}
	if !strings.Contains(res.Note, "timeout") {
		t.Errorf("Note = %q", res.Note)
	}
	if left := waitMarkedProcs(t, mark); left > 0 {
		t.Errorf("%d sandbox processes outlived the timeout", left)
	}
}

func TestHostilePrintsToken(t *testing.T) {
	b, dir := newSandbox(t)
	g := Guard{Runner: b, Secrets: redact.New(testToken)}
	// The token is put together inside the sandbox, as a patch that found
	// it somewhere would.
	half := len(testToken) / 2
	b64 := base64.StdEncoding.EncodeToString([]byte(testToken))
	res, err := g.Run(context.Background(), Spec{Dir: dir, Timeout: 10 * time.Second, Argv: sh(
		"t=" + testToken[:half] + "; t=${t}" + testToken[half:] + "; echo BenchmarkLeak 1 $t ns/op; echo $t >&2; " +
			"echo " + b64[:10] + "$(echo " + b64[10:] + ")")})
	if err != nil {
		t.Fatal(err)
	}
	assertNoToken(t, res)
	if bytes.Contains(res.Stdout, []byte(b64[:30])) {
		t.Errorf("the base64 token reached the output: %s", res.Stdout)
	}
	if !bytes.Contains(res.Stdout, []byte("BenchmarkLeak 1 "+redact.Mask+" ns/op")) || !bytes.Contains(res.Stderr, []byte(redact.Mask)) {
		t.Errorf("stdout %q stderr %q: want the token masked", res.Stdout, res.Stderr)
	}
}

func TestMemoryLimit(t *testing.T) {
	b, dir := newSandbox(t)
	probe := installHelper(t, dir)
	res := run(t, b, Spec{Dir: dir, MemoryBytes: 64 << 20, Timeout: 20 * time.Second,
		Env: []string{helperEnv + "=alloc:512"}, Argv: []string{probe}})
	if res.OK() || bytes.Contains(res.Stdout, []byte("allocated 512")) {
		t.Fatal("the command allocated 512 MiB under a 64 MiB limit")
	}
	if res.Limit != LimitMemory && !strings.Contains(res.Note, "RLIMIT_DATA") {
		t.Errorf("Limit = %q, Note %q: want memory", res.Limit, res.Note)
	}
}

// TestHostileHiddenThroughSymlink: a hidden path given through a symbolic
// link (a config's token_file under a linked directory) hides the real
// file, whichever path the command reads it by.
func TestHostileHiddenThroughSymlink(t *testing.T) {
	b, dir := newSandbox(t)
	// Beside the test, and given to the commands read-only: wherever the
	// clone lives (/tmp, which the sandbox replaces with its own, or
	// /root, which it hides), they see it as the host has it.
	base, err := os.MkdirTemp(".", ".hidden-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	if base, err = filepath.Abs(base); err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(base, "real")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	token := filepath.Join(real, "token")
	if err := os.WriteFile(token, []byte(testToken), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "linked")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	fileLink := filepath.Join(base, "token-link")
	if err := os.Symlink(token, fileLink); err != nil {
		t.Fatal(err)
	}
	for _, hidden := range []string{filepath.Join(link, "token"), fileLink} {
		res := run(t, b, Spec{Dir: dir, ReadOnly: []string{base}, HiddenPaths: []string{hidden}, Argv: sh(
			"cat " + token + "; cat " + filepath.Join(link, "token") + "; cat " + fileLink + "; grep -rs " + testToken[:12] + " " + real)})
		assertNoToken(t, res)
	}
	// The test tests: unhidden, the token is readable.
	if res := run(t, b, Spec{Dir: dir, ReadOnly: []string{base}, Argv: sh("cat " + fileLink)}); !bytes.Contains(res.Stdout, []byte(testToken)) {
		t.Errorf("the token file was unreadable even unhidden: %s", res.Stderr)
	}
}
