package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// CheckCgroups sets up the cgroups one command would get, with a memory
// and a process limit, under parent (a delegated cgroup v2 directory; ""
// for perfbot's own cgroup; NoCgroups for none), then removes them. It
// says where the limits went ("cgroup v2 under DIR: memory, pids"), or why
// no cgroup could be made, in which case commands are limited by rlimits
// alone. A parent that is set but takes no v2 cgroup is an error, even
// when the v1 controllers stand in.
func CheckCgroups(parent string) (string, error) {
	if parent == NoCgroups {
		return "off (cgroup_parent: none): commands are limited by rlimits only", nil
	}
	sys := cgroupSystem{Parent: parent}
	cg := sys.newCgroups(64<<20, 64)
	if cg == nil {
		return "", cgroupTrouble(sys)
	}
	defer cg.remove()
	var v2, v1 []string
	for _, c := range []struct {
		name string
		ctl  *cgroupCtl
	}{{"memory", cg.mem}, {"pids", cg.pids}} {
		name := c.name
		switch c := c.ctl; {
		case c == nil:
		case c.v2:
			v2 = append(v2, name)
		default:
			v1 = append(v1, name)
		}
	}
	if parent != "" && len(v2) == 0 {
		fallback := "rlimits"
		if len(v1) > 0 {
			fallback = "cgroup v1 (" + strings.Join(v1, ", ") + ")"
		}
		return "", fmt.Errorf("%w; commands fall back to %s", cgroupTrouble(sys), fallback)
	}
	var parts []string
	if len(v2) > 0 {
		mounts, paths, _ := readCgroupInfo()
		parts = append(parts, fmt.Sprintf("cgroup v2 under %s: %s", sys.v2Parent(mounts, paths), strings.Join(v2, ", ")))
	}
	if len(v1) > 0 {
		parts = append(parts, "cgroup v1: "+strings.Join(v1, ", "))
	}
	msg := strings.Join(parts, "; ")
	if len(v2)+len(v1) < 2 {
		msg += " (the other limit falls back to rlimits)"
	}
	return msg, nil
}

// cgroupTrouble explains why no cgroup could be made.
func cgroupTrouble(sys cgroupSystem) error {
	mounts, paths, err := readCgroupInfo()
	if err != nil {
		return fmt.Errorf("cgroups: %w", err)
	}
	dir := sys.v2Parent(mounts, paths)
	if dir == "" {
		return errors.New("cgroups: no cgroup v2 hierarchy is mounted and no cgroup v1 memory or pids controller is writable: commands are limited by rlimits only")
	}
	ctl := filepath.Join(dir, "cgroup.subtree_control")
	if _, err := os.Stat(ctl); err != nil {
		return fmt.Errorf("cgroups: %s is not a cgroup v2 directory (%v): set sandbox.cgroup_parent to a directory delegated to perfbot (systemd: Delegate=yes)", dir, err)
	}
	return fmt.Errorf("cgroups: cannot create a cgroup with memory and pids limits under %s: not delegated to this user, or it holds processes itself (systemd: Delegate=yes, and a cgroup_parent below the service's own cgroup)", dir)
}

// CheckFreezer makes and removes the cgroup a session would get under
// parent (see sideGroup) and says how the sessions of a suite with setup
// would be kept off the CPU during the other sides' rounds, or why they
// could not be frozen (their CPU time is then counted from /proc).
func CheckFreezer(parent string) (string, error) {
	if parent == NoCgroups {
		return "", errors.New("off (cgroup_parent: none): the servers of a suite with setup cannot be frozen during the other sides' rounds; their CPU time is counted from /proc")
	}
	g, err := cgroupSystem{Parent: parent}.newSideGroup(false)
	if err != nil {
		return "", fmt.Errorf("%w: the servers of a suite with setup cannot be frozen during the other sides' rounds; their CPU time is counted from /proc", err)
	}
	defer g.remove()
	s := &Session{group: g, noGroup: noFreezer}
	if g.freeze == "" {
		return "", errors.New(s.Isolation())
	}
	where := g.freeze
	return fmt.Sprintf("sessions of a suite with setup are %s, under %s", s.Isolation(), filepath.Dir(where)), nil
}
