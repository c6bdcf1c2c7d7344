package sandbox

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"
)

// SessionSpec is the file system of a session: what its commands may
// write, read and not see. Its network is always its own loopback only.
type SessionSpec struct {
	// Writable lists the directories the session's commands may write (a
	// worktree, a server's data directory); at least one.
	Writable []string
	// ReadOnly lists host paths under a hidden path the commands may read.
	ReadOnly []string
	// HiddenPaths are hidden besides DefaultHiddenPaths, the runner's
	// hidden paths and /run.
	HiddenPaths []string
}

// A Session is a long-lived sandbox (a pod) in which several commands run
// one after another and share processes, loopback and /tmp: a server that a
// suite's setup starts in it keeps running after setup has returned, the
// rounds reach it on the session's 127.0.0.1, and it ends with the session.
// A command runs in a session when its Spec.Session is set; see
// Spec.Service for the commands whose background processes stay.
//
// Under Bubblewrap (perfbot running as root) a session is one bwrap sandbox with its own mount, PID,
// IPC, UTS, cgroup and network namespaces (its own loopback only: no route
// to the host's loopback or anywhere else), the same read-only host, hidden
// paths and private /tmp as a single command, and its Writable directories
// lent to the sandbox user for the session's life. Each command enters the
// namespaces with nsenter and drops to the sandbox user with setpriv
// (no capabilities, no new privileges, exactly Spec.Env), under its own
// timeout, output cap and memory and process limits. Under Local a session
// is the host: commands run as Local runs them, and a service's background
// processes are left running on the host until the session is closed.
//
// Either way, where cgroups allow (see sideGroup), every process of the
// session lives in the session's own cgroup, which Hold freezes while
// another side measures; Close ends what is left in it.
type Session struct {
	// host marks a Local session; cgroupParent is its Local's.
	host         bool
	cgroupParent string
	b            *Bubblewrap
	// pid is the host PID of the session's init (PID 1 of its PID
	// namespace); pidNS names that namespace as /proc/PID/ns/pid does.
	pid   int
	pidNS string
	// cgroupNS says the session has its own cgroup namespace.
	cgroupNS         bool
	nsenter, setpriv string
	envPath, mount   string
	uid, gid         int
	writable         []string
	readOnly         []string
	hidden           []string
	holder           *exec.Cmd
	stderr           *cappedBuffer
	// done is closed when the sandbox's bwrap has exited.
	done    chan struct{}
	restore func() error

	// group holds every process of the session, so that it can be frozen
	// while another side measures (nil: no cgroup; noGroup says why).
	group   *sideGroup
	noGroup string

	// mu lets one command run at a time; it guards services.
	mu       sync.Mutex
	services []*cgroups

	closeOnce sync.Once
	closeErr  error
}

// sessionStarter is a Runner that can start sessions.
type sessionStarter interface {
	startSession(ctx context.Context, spec SessionSpec) (*Session, error)
}

// StartSession starts a session of r: a Bubblewrap sandbox, or the host
// for Local. It looks through runners that wrap another (Guard, and any
// with an Unwrap() Runner method). A Runner that is neither refuses, so
// that a server never falls back to the host unnoticed. The caller must
// Close the session.
func StartSession(ctx context.Context, r Runner, spec SessionSpec) (*Session, error) {
	for inner := r; inner != nil; {
		if s, ok := inner.(sessionStarter); ok {
			return s.startSession(ctx, spec)
		}
		u, ok := inner.(interface{ Unwrap() Runner })
		if !ok {
			break
		}
		inner = u.Unwrap()
	}
	return nil, fmt.Errorf("sandbox: %T cannot start a session, which a suite with setup needs (its server runs beside the benchmark): "+
		"use sandbox.Bubblewrap, or sandbox.Local for a patch you trust", r)
}

// OwnLoopback reports whether the sessions of r have their own loopback,
// so that every session may use the same port.
func OwnLoopback(r Runner) bool {
	for inner := r; inner != nil; {
		if _, ok := inner.(*Bubblewrap); ok {
			return true
		}
		u, ok := inner.(interface{ Unwrap() Runner })
		if !ok {
			return false
		}
		inner = u.Unwrap()
	}
	return false
}

func (l Local) startSession(ctx context.Context, spec SessionSpec) (*Session, error) {
	s := &Session{host: true, cgroupParent: l.CgroupParent}
	s.group, s.noGroup = newSessionGroup(l.CgroupParent, false)
	return s, nil
}

// holderScript is the session's first process: it says the sandbox is
// ready and then waits for the session to end.
const holderScript = `echo ready; exec sleep infinity`

// sessionStartTimeout bounds how long bwrap may take to set a session up.
const sessionStartTimeout = 30 * time.Second

func (b *Bubblewrap) startSession(ctx context.Context, spec SessionSpec) (*Session, error) {
	if len(spec.Writable) == 0 {
		return nil, errors.New("sandbox: a session needs at least one writable directory")
	}
	bwrap, err := b.bwrapPath()
	if err != nil {
		return nil, err
	}
	if os.Geteuid() != 0 {
		// bwrap without root runs the sandbox in a nested user namespace
		// that does not own the sandbox's other namespaces, so nsenter
		// could not enter them.
		return nil, errors.New("sandbox: a suite with setup needs perfbot to run as root under bubblewrap " +
			"(it drops to the sandbox user): without root, commands cannot join the sandbox the server runs in; " +
			"run perfbot as root, or pass --no-sandbox for a patch you trust")
	}
	s := &Session{b: b, done: make(chan struct{}), stderr: &cappedBuffer{limit: 64 << 10}}
	for _, tool := range []struct {
		name string
		dst  *string
	}{{"nsenter", &s.nsenter}, {"setpriv", &s.setpriv}, {"env", &s.envPath}, {"mount", &s.mount}} {
		if *tool.dst, err = exec.LookPath(tool.name); err != nil {
			return nil, fmt.Errorf("sandbox: %s (util-linux, coreutils) is needed to run commands in a session: %w", tool.name, err)
		}
	}
	s.uid, s.gid = b.ids()
	const asRoot = true
	base := Spec{Argv: []string{"/bin/sh", "-c", holderScript}, Dir: spec.Writable[0], Writable: spec.Writable[1:],
		ReadOnly: spec.ReadOnly, HiddenPaths: spec.HiddenPaths, Network: Loopback}
	mounts, err := b.mounts(base, asRoot)
	if err != nil {
		return nil, err
	}
	argv, err := bwrapArgv(bwrap, s.setpriv, base, mounts, asRoot, s.uid, s.gid)
	if err != nil {
		return nil, err
	}
	// bwrap writes the PID of the sandbox's init and its namespaces to fd 3.
	argv = append([]string{argv[0], "--info-fd", "3"}, argv[1:]...)
	for _, d := range spec.Writable {
		s.writable = append(s.writable, filepath.Clean(d))
	}
	for _, d := range spec.ReadOnly {
		s.readOnly = append(s.readOnly, filepath.Clean(d))
	}
	s.hidden = resolveHidden(append(append(append([]string(nil), DefaultHiddenPaths...), b.HiddenPaths...), append(spec.HiddenPaths, "/run")...))
	lent, err := lend(s.writable, s.uid, s.gid)
	if err != nil {
		return nil, err
	}
	s.restore = func() error { _, err := lent.restore(); return err }
	s.group, s.noGroup = newSessionGroup(b.CgroupParent, b.sessionV1)
	if err := s.startHolder(ctx, argv); err != nil {
		if s.group != nil {
			s.group.remove()
		}
		if s.restore != nil {
			_ = s.restore()
		}
		return nil, err
	}
	return s, nil
}

// newSessionGroup makes the cgroup of a session under parent (see
// sideGroup), or says why there is none; v1Only leaves cgroup v2 out.
func newSessionGroup(parent string, v1Only bool) (*sideGroup, string) {
	if parent == NoCgroups {
		return nil, "no cgroups (cgroup_parent: none)"
	}
	if os.Geteuid() != 0 && parent == "" {
		return nil, "no cgroups: perfbot does not run as root and no cgroup_parent is delegated to it"
	}
	g, err := cgroupSystem{Parent: parent}.newSideGroup(v1Only)
	if err != nil {
		return nil, err.Error()
	}
	if g.freeze == "" {
		return g, noFreezer
	}
	return g, ""
}

// noFreezer says why a session whose cgroup counts its CPU time cannot be
// frozen.
const noFreezer = "no cgroup freezer: neither cgroup v2's cgroup.freeze nor the v1 freezer controller"

// holderGate waits for one line on fd 4 before it runs bwrap, whose
// --info-fd is fd 3: the session's first process is in its cgroup before
// it can fork.
const holderGate = `read -r _ <&4 || exit 125; exec 4<&-; exec "$@"`

// bwrapInfo is what bwrap writes to its --info-fd.
type bwrapInfo struct {
	ChildPID int    `json:"child-pid"`
	PIDNS    uint64 `json:"pid-namespace"`
	CgroupNS uint64 `json:"cgroup-namespace"`
}

// startHolder starts bwrap with the holder and waits until the sandbox is
// set up.
func (s *Session) startHolder(ctx context.Context, argv []string) error {
	infoR, infoW, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	defer infoR.Close()
	outR, outW, err := os.Pipe()
	if err != nil {
		infoW.Close()
		return fmt.Errorf("sandbox: %w", err)
	}
	defer outR.Close()
	var gateR, gateW *os.File
	if s.group != nil {
		if gateR, gateW, err = os.Pipe(); err != nil {
			infoW.Close()
			return fmt.Errorf("sandbox: %w", err)
		}
		defer gateW.Close()
		argv = append([]string{"/bin/sh", "-c", holderGate, "perfbot-session"}, argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = "/"
	cmd.Env = []string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin"}
	cmd.Stdout, cmd.Stderr = outW, s.stderr
	cmd.ExtraFiles = []*os.File{infoW}
	if gateR != nil {
		cmd.ExtraFiles = append(cmd.ExtraFiles, gateR)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	s.holder = cmd
	started := make(chan error, 1)
	go func() {
		// Pdeathsig fires when the thread that forked bwrap exits: it
		// stays locked to this goroutine for the session's life, so that
		// the session dies with perfbot and never with a reused thread.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		defer close(s.done)
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		_ = cmd.Wait()
	}()
	err = <-started
	infoW.Close()
	outW.Close()
	if gateR != nil {
		gateR.Close()
	}
	if err != nil {
		return fmt.Errorf("sandbox: start bwrap: %w", err)
	}
	if gateW != nil {
		err := s.group.attach(cmd.Process.Pid)
		if err == nil {
			_, err = gateW.Write([]byte("go\n"))
		}
		gateW.Close()
		if err != nil {
			killGroup(cmd.Process.Pid)
			<-s.done
			return fmt.Errorf("sandbox: start session: its cgroup: %w", err)
		}
	}
	type ready struct {
		info bwrapInfo
		err  error
	}
	got := make(chan ready, 1)
	go func() {
		var r ready
		if r.err = json.NewDecoder(infoR).Decode(&r.info); r.err != nil {
			got <- r
			return
		}
		line, err := bufio.NewReader(outR).ReadString('\n')
		if err != nil || line != "ready\n" {
			r.err = fmt.Errorf("the sandbox did not start (%q, %v)", line, err)
		}
		got <- r
	}()
	timer := time.NewTimer(sessionStartTimeout)
	defer timer.Stop()
	var r ready
	select {
	case r = <-got:
	case <-ctx.Done():
		r.err = ctx.Err()
	case <-timer.C:
		r.err = fmt.Errorf("the sandbox was not ready within %s", sessionStartTimeout)
	}
	if r.err == nil && r.info.ChildPID <= 0 {
		r.err = errors.New("bwrap did not say the PID of the sandbox")
	}
	if r.err != nil {
		killGroup(cmd.Process.Pid)
		<-s.done
		return fmt.Errorf("sandbox: start session: %w: %s", r.err, strings.TrimSpace(string(s.stderr.Bytes())))
	}
	s.pid = r.info.ChildPID
	s.pidNS = fmt.Sprintf("pid:[%d]", r.info.PIDNS)
	s.cgroupNS = r.info.CgroupNS != 0
	return nil
}

// Close ends every process of the session, releases the cgroups of its
// services and gives its writable directories back to their owners. It
// is safe to call more than once.
func (s *Session) Close() error {
	if s == nil {
		return nil
	}
	if s.host {
		s.closeOnce.Do(func() {
			if s.group != nil {
				s.group.kill()
				s.group.remove()
			}
		})
		return nil
	}
	s.closeOnce.Do(func() {
		if s.group != nil {
			// A frozen process does not die until it is thawed.
			_ = s.group.setFrozen(false)
		}
		// The kernel ends every process of a PID namespace when its init
		// dies, wherever their parents are.
		// bwrap waits for its init and exits after it.
		_ = syscall.Kill(s.pid, syscall.SIGKILL)
		select {
		case <-s.done:
		case <-time.After(10 * time.Second):
			killGroup(s.holder.Process.Pid)
			<-s.done
		}
		s.waitGone(10 * time.Second)
		s.mu.Lock()
		for _, cg := range s.services {
			cg.kill()
			cg.remove()
		}
		s.services = nil
		s.mu.Unlock()
		if s.group != nil {
			s.group.kill()
			s.group.remove()
		}
		if s.restore != nil {
			s.closeErr = s.restore()
		}
	})
	return s.closeErr
}

// waitGone waits until no live process is left in the session's PID
// namespace, or for at most d.
func (s *Session) waitGone(d time.Duration) {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		live := 0
		for _, p := range s.processes() {
			if !p.zombie {
				live++
			}
		}
		if live == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// ended reports whether the session's sandbox has gone.
func (s *Session) ended() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}
