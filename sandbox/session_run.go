package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// run runs spec inside the session with b's limits.
func (s *Session) run(ctx context.Context, b *Bubblewrap, spec Spec) (*Result, error) {
	if s.host {
		return nil, errors.New("sandbox: a session of the host (sandbox.Local) cannot run a sandboxed command")
	}
	if s.b != b {
		return nil, errors.New("sandbox: the session was started by another runner")
	}
	if err := s.admits(spec); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended() {
		return nil, fmt.Errorf("sandbox: the session has ended: %s", strings.TrimSpace(string(s.stderr.Bytes())))
	}
	if err := s.hide(ctx, spec.HiddenPaths); err != nil {
		return nil, err
	}
	argv := s.enterArgv(spec)
	var hooks *procHooks
	var before map[int]procInfo
	if spec.Service {
		hooks = s.serviceHooks(spec)
	} else {
		hooks = limitHooks(spec, s.limitParent(), s.uid, false)
		before = s.processes()
	}
	s.joinGroup(hooks)
	if hooks.gated {
		argv = gateArgv(argv)
	}
	host := spec
	host.Dir = "/"
	host.Env = []string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin"}
	res, err := runProcessGroup(ctx, host, argv, hooks)
	if !spec.Service {
		s.sweep(before)
	}
	if err == nil && s.ended() {
		res.addNote("the session ended while the command ran")
	}
	return res, err
}

// admits checks that spec asks for nothing the session does not give:
// the session's mounts and network are fixed when it starts.
func (s *Session) admits(spec Spec) error {
	if spec.Network == FullNetwork {
		return errors.New("sandbox: a command in a session has only the session's loopback, not the network it asks for")
	}
	if strings.Contains(spec.Argv[0], "=") {
		return fmt.Errorf("sandbox: program name %q holds '=': give its path", spec.Argv[0])
	}
	for _, kv := range spec.Env {
		k, _, ok := strings.Cut(kv, "=")
		if !ok || k == "" || strings.HasPrefix(k, "-") {
			return fmt.Errorf("sandbox: environment entry %q is not KEY=VALUE", kv)
		}
	}
	for _, d := range append([]string{spec.Dir}, spec.Writable...) {
		if !filepath.IsAbs(d) || !withinAny(filepath.Clean(d), s.writable) {
			return fmt.Errorf("sandbox: %s is not writable in the session (writable: %s)", d, strings.Join(s.writable, ", "))
		}
	}
	for _, d := range spec.ReadOnly {
		d = filepath.Clean(d)
		if !withinAny(d, s.writable) && !withinAny(d, s.readOnly) && withinAny(d, s.hidden) {
			return fmt.Errorf("sandbox: %s is hidden in the session: list it in the session's read-only paths", d)
		}
	}
	for _, h := range resolveHidden(spec.HiddenPaths) {
		if !filepath.IsAbs(h) || h == "/" {
			return fmt.Errorf("sandbox: hidden path %q: want an absolute path other than /", h)
		}
	}
	return nil
}

// hide hides the paths the session does not hide yet, for the rest of its
// life: an empty tmpfs over a directory, /dev/null over a file, mounted in
// the session's mount namespace (never the host's: bwrap made its mounts
// private). A Runner may hide more for some commands than the session
// was started with; hiding more from the others too is harmless.
func (s *Session) hide(ctx context.Context, paths []string) error {
	for _, h := range resolveHidden(paths) {
		// Under a hidden directory it is hidden already, unless a
		// read-only bind of the session shows it again.
		if withinAny(h, s.hidden) && !withinAny(h, s.readOnly) {
			continue
		}
		pi := hostStat(h)
		if !pi.exists {
			continue
		}
		// Not in the session's view at all (under its private /tmp, or
		// under a hidden directory): nothing to hide.
		if _, err := os.Lstat(fmt.Sprintf("/proc/%d/root%s", s.pid, h)); err != nil {
			continue
		}
		args := []string{"--bind", "/dev/null", h}
		if pi.dir {
			args = []string{"-t", "tmpfs", "-o", "mode=0755,size=64k", "tmpfs", h}
		}
		argv := append([]string{s.nsenter, "--target", strconv.Itoa(s.pid), "--mount", "--", s.mount}, args...)
		res, err := runProcessGroup(ctx, Spec{Dir: "/", Env: []string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin"}, Timeout: 30 * time.Second}, argv, nil)
		if err != nil {
			return fmt.Errorf("sandbox: hide %s in the session: %w", h, err)
		}
		if !res.OK() {
			return fmt.Errorf("sandbox: hide %s in the session: %s", h, strings.TrimSpace(string(res.Stderr)))
		}
		s.hidden = append(s.hidden, h)
	}
	return nil
}

func withinAny(path string, dirs []string) bool {
	for _, d := range dirs {
		if within(path, d) {
			return true
		}
	}
	return false
}

// enterArgv is the command line that runs spec in the session: nsenter
// into its namespaces, setpriv to the sandbox user without capabilities
// or new privileges, env for exactly spec.Env.
func (s *Session) enterArgv(spec Spec) []string {
	argv := []string{s.nsenter, "--target", strconv.Itoa(s.pid), "--mount", "--net", "--pid", "--ipc", "--uts"}
	if s.cgroupNS {
		argv = append(argv, "--cgroup")
	}
	argv = append(argv, "--root", "--wd="+filepath.Clean(spec.Dir), "--", s.setpriv,
		fmt.Sprintf("--reuid=%d", s.uid), fmt.Sprintf("--regid=%d", s.gid), "--clear-groups",
		"--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--", s.envPath, "-i", "--")
	argv = append(argv, spec.Env...)
	return append(argv, spec.Argv...)
}

// serviceHooks are the limits of a service command: like limitHooks, but
// the cgroup outlives the command, holding the server it started until
// the session ends.
func (s *Session) serviceHooks(spec Spec) *procHooks {
	h := &procHooks{leaveGroup: true}
	if spec.MemoryBytes <= 0 && spec.MaxProcs <= 0 && spec.MaxFileSize <= 0 {
		return h
	}
	var cg *cgroups
	if s.b.CgroupParent != NoCgroups {
		cg = cgroupSystem{Parent: s.limitParent()}.newCgroups(spec.MemoryBytes, spec.MaxProcs)
	}
	memRlimit := spec.MemoryBytes > 0 && (cg == nil || cg.mem == nil)
	procRlimit := spec.MaxProcs > 0 && (cg == nil || cg.pids == nil)
	h.gated = true
	h.afterStart = applyLimits(cg, spec, memRlimit, procRlimit)
	if cg == nil {
		return h
	}
	s.services = append(s.services, cg)
	h.kill = cg.kill
	h.finish = func(res *Result) {
		switch {
		case cg.oomKilled():
			res.Limit = LimitMemory
			res.addNote(fmt.Sprintf("a process was killed at the %s memory limit", sizeString(spec.MemoryBytes)))
		case cg.pidsExhausted():
			res.Limit = LimitPids
			res.addNote(fmt.Sprintf("process creation failed at the limit of %d processes", spec.MaxProcs))
		}
	}
	return h
}

// limitParent is the cgroup v2 directory under which a command of the
// session gets its limit cgroup: inside the session's own group, so that
// the command stays in it.
func (s *Session) limitParent() string {
	switch {
	case s.group != nil && s.group.v2 != "":
		return s.group.v2
	case s.host:
		return s.cgroupParent
	}
	return s.b.CgroupParent
}

// joinGroup makes the command join the session's cgroup before it runs,
// ahead of its own limit cgroups (a v2 one lies inside the session's).
func (s *Session) joinGroup(h *procHooks) {
	if s.group == nil {
		return
	}
	h.gated = true
	limits := h.afterStart
	h.afterStart = func(pid int) error {
		if err := s.group.attach(pid); err != nil {
			return err
		}
		if limits != nil {
			return limits(pid)
		}
		return nil
	}
}

// procInfo is one process of the session as the host sees it.
type procInfo struct {
	ppid   int
	zombie bool
	start  string // start time in clock ticks since boot: tells a reused PID apart
	// ticks is the CPU time of the process and of the children it
	// reaped, in clock ticks.
	ticks int64
}

// processes lists the session's processes by host PID.
func (s *Session) processes() map[int]procInfo {
	out := map[int]procInfo{}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return out
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ns, err := os.Readlink("/proc/" + e.Name() + "/ns/pid"); err != nil || ns != s.pidNS {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
		i := strings.LastIndexByte(string(b), ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 20 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		var ticks int64
		for _, t := range f[11:15] { // utime, stime, cutime, cstime
			n, _ := strconv.ParseInt(t, 10, 64)
			ticks += n
		}
		out[pid] = procInfo{ppid: ppid, zombie: f[0] == "Z", start: f[19], ticks: ticks}
	}
	return out
}

// sweep ends the processes a command left in the session: every process
// that was not there before it, unless it descends from one that was
// (other than the session's init), such as a server's worker forked for a
// connection. A daemon a round started is reparented to the init and ends.
func (s *Session) sweep(before map[int]procInfo) {
	for pass := 0; pass < 20; pass++ {
		now := s.processes()
		old := func(pid int) bool {
			p, ok := before[pid]
			return ok && p.start == now[pid].start
		}
		killed := 0
		for pid := range now {
			if old(pid) || now[pid].zombie {
				continue
			}
			keep := false
			for a, n := now[pid].ppid, 0; n < 64 && a != s.pid; a, n = now[a].ppid, n+1 {
				if _, in := now[a]; !in {
					break
				}
				if old(a) {
					keep = true
					break
				}
			}
			if !keep {
				_ = syscall.Kill(pid, syscall.SIGKILL)
				killed++
			}
		}
		if killed == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}
