package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// sideGroup is the cgroup that holds every process of one session: its
// sandbox's init, the servers its setup started and whatever they start,
// and each command entered into it. It lets the runner freeze the whole
// session while another side measures, and read how much CPU time the
// session used meanwhile. A process cannot leave it: the sandbox user may
// write no cgroup file.
//
// The freezer is cgroup v2's cgroup.freeze where a v2 hierarchy takes a
// child, else the v1 freezer controller; the CPU time is v2's cpu.stat
// (usage_usec, kept whether or not the cpu controller is enabled) or v1's
// cpuacct.usage. On a hybrid host either can come from either hierarchy.
type sideGroup struct {
	// dirs are the directories made, removed at the end (deepest first).
	dirs []string
	// procs are the directories whose cgroup.procs take a process: one
	// per hierarchy.
	procs []string
	// v2 is the v2 directory (""), whose children hold the processes:
	// v2/session, and the commands' own limit cgroups.
	v2 string
	// freeze is how the group is frozen: the v2 directory, or the v1
	// freezer directory (freezeV1).
	freeze   string
	freezeV1 bool
	// cpu is the directory that counts its CPU time: the v2 directory,
	// or the v1 cpuacct directory (cpuV1).
	cpu   string
	cpuV1 bool
}

// freezeWait bounds how long a freeze may take to reach every process.
const freezeWait = 5 * time.Second

// newSideGroup makes the group of a session, or says why it cannot.
// noV2 leaves the v2 hierarchy out (tests of the v1 controllers on a
// hybrid host).
func (s cgroupSystem) newSideGroup(noV2 bool) (*sideGroup, error) {
	mounts, paths, err := readCgroupInfo()
	if err != nil {
		return nil, fmt.Errorf("cgroups: %w", err)
	}
	name := "perfbot-side-" + randomHex()
	g := &sideGroup{}
	var why []string
	if parent := s.v2Parent(mounts, paths); parent != "" && !noV2 {
		if err := g.tryV2(parent, name); err != nil {
			why = append(why, err.Error())
		}
	}
	for _, m := range mounts {
		if m.fstype != "cgroup" {
			continue
		}
		for _, opt := range m.options {
			switch {
			case opt == "freezer" && g.freeze == "":
				dir := filepath.Join(m.point, paths["freezer"], name)
				if err := g.mkdirV1(dir, "freezer.state"); err != nil {
					why = append(why, err.Error())
					continue
				}
				g.freeze, g.freezeV1 = dir, true
			case opt == "cpuacct" && g.cpu == "":
				dir := filepath.Join(m.point, paths["cpuacct"], name)
				if err := g.mkdirV1(dir, "cpuacct.usage"); err != nil {
					why = append(why, err.Error())
					continue
				}
				g.cpu, g.cpuV1 = dir, true
			}
		}
	}
	if g.freeze == "" && g.cpu == "" {
		g.remove()
		if len(why) == 0 {
			why = append(why, "no cgroup v2 hierarchy and no v1 freezer or cpuacct controller is mounted")
		}
		return nil, errors.New("cgroups: " + strings.Join(why, "; "))
	}
	return g, nil
}

// tryV2 makes the group's v2 directory under parent, with the leaf
// "session" where its processes go, so that the commands' limit cgroups
// can be its children too (v2 lets only leaves hold processes once
// controllers are enabled). It enables the memory and pids controllers
// down to it where it can.
func (g *sideGroup) tryV2(parent, name string) error {
	dir := filepath.Join(parent, name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return fmt.Errorf("cgroup v2 under %s: %v", parent, err)
	}
	g.dirs = append(g.dirs, dir)
	leaf := filepath.Join(dir, "session")
	if err := os.Mkdir(leaf, 0o755); err != nil {
		return fmt.Errorf("cgroup v2 under %s: %v", parent, err)
	}
	g.dirs = append(g.dirs, leaf)
	for _, c := range []string{"memory", "pids"} {
		_ = writeCgroupFile(parent, "cgroup.subtree_control", "+"+c)
		_ = writeCgroupFile(dir, "cgroup.subtree_control", "+"+c)
	}
	g.v2 = dir
	g.procs = append(g.procs, leaf)
	if _, err := os.Stat(filepath.Join(dir, "cgroup.freeze")); err == nil {
		g.freeze = dir
	}
	if _, err := os.Stat(filepath.Join(dir, "cpu.stat")); err == nil {
		g.cpu = dir
	}
	return nil
}

// mkdirV1 makes a v1 directory that has the control file want.
func (g *sideGroup) mkdirV1(dir, want string) error {
	if err := os.Mkdir(dir, 0o755); err != nil {
		return fmt.Errorf("cgroup v1 %s: %v", filepath.Dir(dir), err)
	}
	g.dirs = append(g.dirs, dir)
	if _, err := os.Stat(filepath.Join(dir, want)); err != nil {
		return fmt.Errorf("cgroup v1 %s: %v", dir, err)
	}
	g.procs = append(g.procs, dir)
	return nil
}

// attach moves pid into the group, in every hierarchy.
func (g *sideGroup) attach(pid int) error {
	for _, d := range g.procs {
		if err := writeCgroupFile(d, "cgroup.procs", strconv.Itoa(pid)); err != nil {
			return err
		}
	}
	return nil
}

// how says how the group is frozen, for the provenance.
func (g *sideGroup) how() string {
	switch {
	case g.freeze == "":
		return ""
	case g.freezeV1:
		return "cgroup v1 freezer"
	}
	return "cgroup v2 freezer"
}

// setFrozen freezes or thaws every process of the group and waits until
// the kernel says it is done.
func (g *sideGroup) setFrozen(frozen bool) error {
	if g.freeze == "" {
		return errors.New("no freezer")
	}
	file, value, want := "cgroup.freeze", "0", int64(0)
	if frozen {
		value, want = "1", 1
	}
	done := func() bool { return eventCount(g.freeze, "cgroup.events", "frozen") == want }
	if g.freezeV1 {
		file, value = "freezer.state", "THAWED"
		if frozen {
			value = "FROZEN"
		}
		done = func() bool {
			b, _ := os.ReadFile(filepath.Join(g.freeze, "freezer.state"))
			return strings.TrimSpace(string(b)) == value
		}
	}
	if err := writeCgroupFile(g.freeze, file, value); err != nil {
		return err
	}
	deadline := time.Now().Add(freezeWait)
	for try := 1; ; try++ {
		if done() {
			return nil
		}
		if g.freezeV1 && frozen {
			// A v1 freezer can stay FREEZING while the group's
			// processes keep forking: the kernel's documentation
			// says to write FROZEN again, and a short thaw now and
			// then lets the forks settle (as runc does).
			if try%50 == 0 {
				_ = writeCgroupFile(g.freeze, file, "THAWED")
				time.Sleep(10 * time.Millisecond)
			}
			if err := writeCgroupFile(g.freeze, file, value); err != nil {
				return err
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("cgroup %s: not %s within %s", g.freeze, map[bool]string{true: "frozen", false: "thawed"}[frozen], freezeWait)
		}
		time.Sleep(time.Millisecond)
	}
}

// cpuTime is the CPU time the group's processes have used so far.
func (g *sideGroup) cpuTime() (time.Duration, error) {
	if g.cpu == "" {
		return 0, errors.New("no CPU accounting")
	}
	if g.cpuV1 {
		b, err := os.ReadFile(filepath.Join(g.cpu, "cpuacct.usage"))
		if err != nil {
			return 0, err
		}
		ns, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		return time.Duration(ns), err
	}
	if _, err := os.Stat(filepath.Join(g.cpu, "cpu.stat")); err != nil {
		return 0, err
	}
	return time.Duration(eventCount(g.cpu, "cpu.stat", "usage_usec")) * time.Microsecond, nil
}

// kill ends every process of the group: thawed first, since a process of
// a frozen v1 group does not die until it runs again.
func (g *sideGroup) kill() {
	if g.freeze != "" {
		_ = g.setFrozen(false)
	}
	for _, d := range g.procs {
		if writeCgroupFile(d, "cgroup.kill", "1") == nil {
			continue
		}
		(&cgroups{dirs: []string{d}}).kill()
	}
}

// remove deletes the group's directories, deepest first, ending what is
// left in them.
func (g *sideGroup) remove() {
	for i := len(g.dirs) - 1; i >= 0; i-- {
		d := g.dirs[i]
		for n := 0; n < 100; n++ {
			err := os.Remove(d)
			if err == nil || errors.Is(err, os.ErrNotExist) {
				break
			}
			g.kill()
			time.Sleep(20 * time.Millisecond)
		}
	}
}
