package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// busyService is a service whose background process escapes the script
// (its own session, reparented to the sandbox's init) and then spins,
// counting in the file hb.
const busyService = `setsid sh -c 'i=0; while :; do i=$((i+1)); echo $i > hb.new; mv hb.new hb; done' > /dev/null 2>&1 < /dev/null &`

// readBeat reads the busy loop's counter, waiting for it to start.
func readBeat(t *testing.T, dir string) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, err := os.ReadFile(filepath.Join(dir, "hb"))
		if s := strings.TrimSpace(string(b)); err == nil && s != "" {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("the busy loop never wrote its counter: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitBeat waits until the counter moves past old.
func waitBeat(t *testing.T, dir, old string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for readBeat(t, dir) == old {
		if time.Now().After(deadline) {
			t.Fatalf("the busy loop did not run again after the hold (counter stays %s)", old)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestSessionHoldFreezes starts a service that leaves a busy process
// behind (escaped into its own session) and holds the session: the
// process makes no progress and uses no CPU while held, and runs again
// once released. Under Local too, where the process runs on the host.
func TestSessionHoldFreezes(t *testing.T) {
	t.Run("bubblewrap", func(t *testing.T) {
		b, dir := newSandbox(t)
		holdFreezes(t, b, startSession(t, b, SessionSpec{Writable: []string{dir}}), dir)
	})
	t.Run("bubblewrap-v1", func(t *testing.T) {
		b, dir := newSandbox(t)
		b.sessionV1 = true
		s := startSession(t, b, SessionSpec{Writable: []string{dir}})
		if s.group != nil && !s.group.freezeV1 {
			t.Fatalf("the session's freezer is %s, want v1", s.group.how())
		}
		holdFreezes(t, b, s, dir)
		if got := s.Isolation(); got != "frozen (cgroup v1 freezer), CPU time from cgroup v1 cpuacct" {
			t.Errorf("Isolation() = %q", got)
		}
	})
	t.Run("local", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("needs root to make cgroups")
		}
		dir := t.TempDir()
		s := startSession(t, Local{}, SessionSpec{Writable: []string{dir}})
		holdFreezes(t, Local{}, s, dir)
		// The busy process ends with the session.
		_ = s.Close()
		old := readBeat(t, dir)
		time.Sleep(200 * time.Millisecond)
		if now := readBeat(t, dir); now != old {
			t.Errorf("the busy process still runs after Close (counter %s, then %s)", old, now)
		}
	})
}

func holdFreezes(t *testing.T, r Runner, s *Session, dir string) {
	if s.group == nil || s.group.freeze == "" {
		t.Skipf("no cgroup freezer here: %s", s.noGroup)
	}
	if !strings.HasPrefix(s.Isolation(), "frozen (cgroup v") {
		t.Errorf("Isolation() = %q, want frozen by a cgroup freezer", s.Isolation())
	}
	if res := run(t, r, Spec{Dir: dir, Session: s, Service: true, Timeout: 30 * time.Second, Argv: sh(busyService)}); !res.OK() {
		t.Fatalf("service failed: %s", res.Stderr)
	}
	for i := 0; i < 3; i++ {
		before := readBeat(t, dir)
		h := s.Hold()
		held := readBeat(t, dir)
		time.Sleep(300 * time.Millisecond)
		after := readBeat(t, dir)
		r := h.Release()
		if !r.Frozen || r.Err != nil {
			t.Fatalf("hold %d: frozen %v, %v", i, r.Frozen, r.Err)
		}
		if held != after {
			t.Errorf("hold %d: the busy loop counted from %s to %s while the session was frozen", i, held, after)
		}
		if !r.Measured || r.CPU > 2*time.Millisecond {
			t.Errorf("hold %d: the frozen session used %s of CPU (measured %v)", i, r.CPU, r.Measured)
		}
		waitBeat(t, dir, before)
	}
}

// TestSessionHoldWithoutCgroups: without cgroups the session cannot be
// frozen, and its CPU time is still counted from /proc.
func TestSessionHoldWithoutCgroups(t *testing.T) {
	b, dir := newSandbox(t)
	b.CgroupParent = NoCgroups
	s := startSession(t, b, SessionSpec{Writable: []string{dir}})
	if got := s.Isolation(); !strings.Contains(got, "freezing unavailable") || !strings.Contains(got, "/proc") {
		t.Errorf("Isolation() = %q, want freezing unavailable and the CPU counted from /proc", got)
	}
	if res := run(t, b, Spec{Dir: dir, Session: s, Service: true, Timeout: 30 * time.Second, Argv: sh(busyService)}); !res.OK() {
		t.Fatalf("service failed: %s", res.Stderr)
	}
	readBeat(t, dir)
	var total time.Duration
	deadline := time.Now().Add(30 * time.Second)
	for total < 5*procTick {
		if time.Now().After(deadline) {
			t.Fatalf("the busy loop's CPU time was not counted: %s in 30 s", total)
		}
		h := s.Hold()
		time.Sleep(100 * time.Millisecond)
		r := h.Release()
		if r.Frozen || r.Err == nil || !r.Measured {
			t.Fatalf("frozen %v, err %v, measured %v: want not frozen, why, and measured", r.Frozen, r.Err, r.Measured)
		}
		total += r.CPU
	}
}

// TestSideGroupV1 freezes a busy process with the v1 freezer and counts
// its CPU with v1 cpuacct, as on a host whose cgroup v2 hierarchy has no
// freezer.
func TestSideGroupV1(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to make cgroups")
	}
	g, err := cgroupSystem{}.newSideGroup(true)
	if err != nil {
		t.Skipf("no v1 freezer here: %v", err)
	}
	defer g.remove()
	if !g.freezeV1 || !g.cpuV1 {
		t.Skipf("no v1 freezer and cpuacct here (%s, %s)", g.freeze, g.cpu)
	}
	cmd := exec.Command("/bin/sh", "-c", "while :; do :; done")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	if err := g.attach(cmd.Process.Pid); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := g.cpuTime()
		if err != nil {
			t.Fatal(err)
		}
		if c > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("cpuacct.usage stayed 0 for a busy process")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := g.setFrozen(true); err != nil {
		t.Fatal(err)
	}
	c0, _ := g.cpuTime()
	time.Sleep(300 * time.Millisecond)
	c1, _ := g.cpuTime()
	if c1 != c0 {
		t.Errorf("the frozen group used %s of CPU", c1-c0)
	}
	if err := g.setFrozen(false); err != nil {
		t.Fatal(err)
	}
	for {
		if c, _ := g.cpuTime(); c > c1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the thawed process did not run again")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
