package sandbox

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/perfbot/perfbot/redact"
)

// startSession starts a session of r over dirs and closes it at the end of
// the test.
func startSession(t *testing.T, r Runner, spec SessionSpec) *Session {
	t.Helper()
	if _, local := r.(Local); !local && os.Geteuid() != 0 {
		_, err := StartSession(context.Background(), r, spec)
		if err == nil || !strings.Contains(err.Error(), "needs perfbot to run as root") {
			t.Fatalf("StartSession without root: %v, want a refusal that says why", err)
		}
		t.Skip("sessions under bubblewrap need root: refused as they should be")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := StartSession(ctx, r, spec)
	if err != nil {
		t.Fatalf("StartSession: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// hostListener listens on the host's loopback and counts the connections
// it accepts.
func hostListener(t *testing.T) (string, *atomic.Int32) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	var n atomic.Int32
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			c.Close()
		}
	}()
	return l.Addr().String(), &n
}

// TestSessionServer starts a server with a service command and reaches it
// from later commands on the session's own loopback, while the host's
// loopback stays out of reach; the server ends with the session.
func TestSessionServer(t *testing.T) {
	b, dir := newSandbox(t)
	data := worktree(t)
	probe := installHelper(t, dir)
	hostAddr, accepted := hostListener(t)
	g := Guard{Runner: b, Secrets: redact.New(testToken)}
	s := startSession(t, g, SessionSpec{Writable: []string{dir, data}})
	if os.Geteuid() == 0 {
		for _, d := range []string{dir, data} {
			if fi, err := os.Stat(d); err != nil || ownerOf(fi) != DefaultUID {
				t.Errorf("%s is not lent to the sandbox user during the session", d)
			}
		}
	}
	// The same fixed port a second session would use too.
	const addr = "127.0.0.1:7000"
	setup := run(t, g, Spec{Dir: data, Session: s, Service: true, Timeout: 30 * time.Second, Argv: sh(
		helperEnv + "=serve:" + addr + " " + probe + " > server.log 2>&1 &\n" +
			"for i in $(seq 100); do " + helperEnv + "=dial:" + addr + " " + probe + " && break; sleep 0.1; done\n" +
			"id -u > uid")})
	if !setup.OK() {
		t.Fatal("setup failed")
	}
	server := liveProcesses(s)

	// A round reaches the server, not the host's loopback, and what it
	// leaves behind (a daemon in its own session) is ended with it.
	round := run(t, g, Spec{Dir: dir, Session: s, Argv: sh(
		helperEnv + "=dial:" + addr + " " + probe + "; " +
			helperEnv + "=dial:" + hostAddr + " " + probe + "; " +
			"setsid sleep 300 > /dev/null 2>&1 & id -u; cat " + data + "/uid")})
	out := string(round.Stdout)
	if !strings.HasPrefix(out, "connected\ndial failed") {
		t.Errorf("round: want the session's server reached and the host's loopback not: %q", out)
	}
	if accepted.Load() != 0 {
		t.Errorf("the host's listener on %s accepted %d connection(s) from the session", hostAddr, accepted.Load())
	}
	if os.Geteuid() == 0 {
		want := strconv.Itoa(DefaultUID) + "\n"
		if !strings.HasSuffix(out, want+want) {
			t.Errorf("setup and round did not both run as %d: %q", DefaultUID, out)
		}
	}
	if n := liveProcesses(s); n != server {
		t.Errorf("after the round the session has %d processes, want the %d it had after setup: the round's daemon survived", n, server)
	}
	again := run(t, g, Spec{Dir: dir, Session: s, Argv: []string{probe}, Env: []string{helperEnv + "=dial:" + addr}})
	if !bytes.Contains(again.Stdout, []byte("connected")) {
		t.Errorf("the server did not outlive a round: %q", again.Stdout)
	}

	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if n := liveProcesses(s); n != 0 {
		for pid, p := range s.processes() {
			b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
			t.Logf("left: %d %+v %s", pid, p, b)
		}
		t.Errorf("%d processes of the session outlived it", n)
	}
	if os.Geteuid() == 0 {
		if fi, err := os.Stat(dir); err != nil || ownerOf(fi) != 0 {
			t.Errorf("%s was not given back to root after the session", dir)
		}
	}
	if _, err := g.Run(context.Background(), Spec{Dir: dir, Session: s, Argv: []string{"/bin/true"}}); err == nil {
		t.Error("a command in a closed session ran")
	}
}

// TestSessionLimits: a command in a session keeps its timeout, and the
// session keeps working after one was killed.
func TestSessionLimits(t *testing.T) {
	b, dir := newSandbox(t)
	// A path the session was not started with is hidden from then on.
	// It lies beside the test, in a directory the session is given
	// read-only: wherever the clone lives (/tmp, which the session
	// replaces with its own, or /root, which it hides), the session sees
	// it as the host has it until it is hidden.
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	visible, err := os.MkdirTemp(wd, ".session-visible-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(visible)
	secrets := filepath.Join(visible, "hidden")
	for _, d := range []string{visible, secrets} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s := startSession(t, b, SessionSpec{Writable: []string{dir}, ReadOnly: []string{visible}})
	res := run(t, b, Spec{Dir: dir, Session: s, Timeout: time.Second, Argv: sh("sleep 60")})
	if res.Limit != LimitTimeout || res.OK() {
		t.Errorf("sleep 60 under a 1s timeout: limit %q, exit %d", res.Limit, res.ExitCode)
	}
	res = run(t, b, Spec{Dir: dir, Session: s, MaxOutput: 10, Argv: sh("echo 0123456789abcdef; cat /proc/1/cmdline")})
	if res.Limit != LimitOutput || string(res.Stdout) != "0123456789" {
		t.Errorf("output cap: limit %q, stdout %q", res.Limit, res.Stdout)
	}
	// /root holds nothing but the way to the test's directory, if the
	// clone lives there.
	wantRoot := ""
	if rel, err := filepath.Rel("/root", visible); err == nil && !strings.HasPrefix(rel, "..") {
		wantRoot = strings.Split(rel, "/")[0] + "\n"
	}
	res = run(t, b, Spec{Dir: dir, Session: s, HiddenPaths: []string{"/root"}, Argv: sh("ls -A /root; echo; ls -A /run | wc -l")})
	if !res.OK() || string(res.Stdout) != wantRoot+"\n0\n" {
		t.Errorf("hidden paths: want /root (%q) and /run empty, got %q", wantRoot, res.Stdout)
	}
	file := filepath.Join(secrets, "token")
	lone := filepath.Join(visible, "hidden.yaml")
	for _, f := range []string{file, lone} {
		if err := os.WriteFile(f, []byte(testToken), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res = run(t, b, Spec{Dir: dir, Session: s, Argv: sh("cat " + lone)})
	if !strings.Contains(string(res.Stdout), testToken) {
		t.Fatalf("the test's secret is not visible in the session before it is hidden: the test proves nothing")
	}
	for i := 0; i < 2; i++ {
		res = run(t, b, Spec{Dir: dir, Session: s, HiddenPaths: []string{secrets, lone}, Argv: sh("ls " + secrets + " | wc -l; cat " + lone + " " + file)})
		assertNoToken(t, res)
		if !strings.HasPrefix(string(res.Stdout), "0\n") {
			t.Errorf("a hidden path added to a session is not hidden: %q", res.Stdout)
		}
	}
}

// TestSessionRefuses: what a session cannot give is refused, not given
// on the host.
func TestSessionRefuses(t *testing.T) {
	b, dir := newSandbox(t)
	other := worktree(t)
	s := startSession(t, b, SessionSpec{Writable: []string{dir}})
	for name, spec := range map[string]Spec{
		"full network":    {Dir: dir, Network: FullNetwork},
		"outside dir":     {Dir: other},
		"outside write":   {Dir: dir, Writable: []string{other}},
		"relative hidden": {Dir: dir, HiddenPaths: []string{"etc"}},
		"hidden read":     {Dir: dir, ReadOnly: []string{"/root"}},
		"argv0 with '='":  {Dir: dir, Argv: []string{"A=B"}},
	} {
		if spec.Argv == nil {
			spec.Argv = []string{"/bin/true"}
		}
		spec.Session = s
		if _, err := b.Run(context.Background(), spec); err == nil {
			t.Errorf("%s: no error", name)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
	if _, err := (Local{}).Run(context.Background(), Spec{Dir: dir, Session: s, Argv: []string{"/bin/true"}}); err == nil {
		t.Error("Local ran a command of a bubblewrap session")
	}
	if _, err := b.Run(context.Background(), Spec{Dir: dir, Service: true, Argv: []string{"/bin/true"}}); err == nil {
		t.Error("a service without a session ran")
	}
	type bare struct{ Runner }
	if _, err := StartSession(context.Background(), bare{b}, SessionSpec{Writable: []string{dir}}); err == nil ||
		!strings.Contains(err.Error(), "cannot start a session") {
		t.Errorf("a runner that cannot start sessions: %v", err)
	}
}

// TestSessionLocal: under Local a service's daemon stays on the host until
// something ends it.
func TestSessionLocal(t *testing.T) {
	dir := t.TempDir()
	s := startSession(t, Local{}, SessionSpec{Writable: []string{dir}})
	pidfile := filepath.Join(dir, "pid")
	res := run(t, Local{}, Spec{Dir: dir, Session: s, Service: true, Argv: sh("sleep 300 > /dev/null 2>&1 & echo $! > " + pidfile)})
	if !res.OK() {
		t.Fatal("service failed")
	}
	b, err := os.ReadFile(pidfile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if pid <= 0 || syscall.Kill(pid, 0) != nil {
		t.Fatalf("the service's daemon %d is not running", pid)
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
}

// liveProcesses counts the session's processes that are not zombies.
func liveProcesses(s *Session) int {
	n := 0
	for _, p := range s.processes() {
		if !p.zombie {
			n++
		}
	}
	return n
}
