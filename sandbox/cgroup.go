package sandbox

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// cgroupSystem says where the cgroup file systems are. The zero value reads
// /proc/self/mountinfo and /proc/self/cgroup.
type cgroupSystem struct {
	// Parent is a cgroup v2 directory, delegated to perfbot, under which
	// each command gets its own cgroup ("": perfbot's own cgroup).
	Parent string
}

// cgroupCtl is one controller of a per-command cgroup.
type cgroupCtl struct {
	dir string
	v2  bool
}

// cgroups is the set of cgroups one command runs in. A limit whose
// controller could not be set up is left to rlimits.
type cgroups struct {
	dirs      []string // created, removed at the end
	mem, pids *cgroupCtl
}

// mount is one line of /proc/self/mountinfo that matters here.
type mount struct {
	point, fstype string
	options       []string // super-block options: the v1 controllers
}

// parseMountinfo reads the cgroup mounts from a mountinfo file.
func parseMountinfo(r io.Reader) ([]mount, error) {
	var out []mount
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		sep := -1
		for i, f := range fields {
			if f == "-" {
				sep = i
				break
			}
		}
		if sep < 5 || len(fields) < sep+4 {
			continue
		}
		fstype := fields[sep+1]
		if fstype != "cgroup" && fstype != "cgroup2" {
			continue
		}
		out = append(out, mount{point: unescapeMount(fields[4]), fstype: fstype, options: strings.Split(fields[sep+3], ",")})
	}
	return out, sc.Err()
}

// unescapeMount undoes the octal escapes (\040 for a space) of mountinfo.
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// parseProcCgroup maps each v1 controller, and "" for v2, to the process's
// cgroup path, from a /proc/self/cgroup file.
func parseProcCgroup(r io.Reader) (map[string]string, error) {
	out := map[string]string{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[1] == "" {
			out[""] = parts[2]
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			out[c] = parts[2]
		}
	}
	return out, sc.Err()
}

// newCgroups creates the cgroups for one command with the given limits
// (0: none). It returns nil when no limit is asked for or none can be set
// through cgroups; the caller falls back to rlimits for the rest.
func (s cgroupSystem) newCgroups(memory int64, procs int) *cgroups {
	if memory <= 0 && procs <= 0 {
		return nil
	}
	mounts, paths, err := readCgroupInfo()
	if err != nil {
		return nil
	}
	name := "perfbot-" + randomHex()
	cg := &cgroups{}
	if dir := s.v2Parent(mounts, paths); dir != "" {
		cg.tryV2(dir, name, memory, procs)
	}
	for _, m := range mounts {
		if m.fstype != "cgroup" {
			continue
		}
		for _, opt := range m.options {
			switch {
			case opt == "memory" && memory > 0 && cg.mem == nil:
				cg.mem = cg.tryV1(filepath.Join(m.point, paths["memory"], name), func(dir string) error {
					v := strconv.FormatInt(memory, 10)
					if err := writeCgroupFile(dir, "memory.limit_in_bytes", v); err != nil {
						return err
					}
					// No swap either, where swap accounting is on.
					_ = writeCgroupFile(dir, "memory.memsw.limit_in_bytes", v)
					return nil
				})
			case opt == "pids" && procs > 0 && cg.pids == nil:
				cg.pids = cg.tryV1(filepath.Join(m.point, paths["pids"], name), func(dir string) error {
					return writeCgroupFile(dir, "pids.max", strconv.Itoa(procs))
				})
			}
		}
	}
	if len(cg.dirs) == 0 {
		return nil
	}
	return cg
}

func readCgroupInfo() ([]mount, map[string]string, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	mounts, err := parseMountinfo(f)
	if err != nil {
		return nil, nil, err
	}
	g, err := os.Open("/proc/self/cgroup")
	if err != nil {
		return nil, nil, err
	}
	defer g.Close()
	paths, err := parseProcCgroup(g)
	return mounts, paths, err
}

// v2Parent returns the cgroup v2 directory to create command cgroups in.
func (s cgroupSystem) v2Parent(mounts []mount, paths map[string]string) string {
	if s.Parent != "" {
		return s.Parent
	}
	own, ok := paths[""]
	if !ok {
		return ""
	}
	for _, m := range mounts {
		if m.fstype == "cgroup2" {
			return filepath.Join(m.point, own)
		}
	}
	return ""
}

// tryV2 sets up the memory and pids controllers in a v2 child of parent,
// enabling them in parent's subtree_control when they are not yet.
func (cg *cgroups) tryV2(parent, name string, memory int64, procs int) {
	want := map[string]bool{"memory": memory > 0, "pids": procs > 0}
	have := map[string]bool{}
	ctl, err := os.ReadFile(filepath.Join(parent, "cgroup.subtree_control"))
	if err != nil {
		return
	}
	for _, c := range strings.Fields(string(ctl)) {
		have[c] = true
	}
	for c, w := range want {
		if w && !have[c] {
			// Fails when parent holds processes itself (not the root):
			// then this controller is left to v1 or rlimits.
			if writeCgroupFile(parent, "cgroup.subtree_control", "+"+c) == nil {
				have[c] = true
			}
		}
	}
	if !(want["memory"] && have["memory"]) && !(want["pids"] && have["pids"]) {
		return
	}
	dir := filepath.Join(parent, name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return
	}
	cg.dirs = append(cg.dirs, dir)
	c := &cgroupCtl{dir: dir, v2: true}
	if want["memory"] && have["memory"] && writeCgroupFile(dir, "memory.max", strconv.FormatInt(memory, 10)) == nil {
		_ = writeCgroupFile(dir, "memory.swap.max", "0")
		_ = writeCgroupFile(dir, "memory.oom.group", "1")
		cg.mem = c
	}
	if want["pids"] && have["pids"] && writeCgroupFile(dir, "pids.max", strconv.Itoa(procs)) == nil {
		cg.pids = c
	}
}

// tryV1 creates a v1 cgroup at dir and sets its limit.
func (cg *cgroups) tryV1(dir string, set func(dir string) error) *cgroupCtl {
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil
	}
	if err := set(dir); err != nil {
		_ = os.Remove(dir)
		return nil
	}
	cg.dirs = append(cg.dirs, dir)
	return &cgroupCtl{dir: dir}
}

// attach moves pid into every cgroup of the set.
func (cg *cgroups) attach(pid int) error {
	for _, d := range cg.dirs {
		if err := writeCgroupFile(d, "cgroup.procs", strconv.Itoa(pid)); err != nil {
			return err
		}
	}
	return nil
}

// oomKilled reports whether the kernel killed a process for memory.
func (cg *cgroups) oomKilled() bool {
	if cg.mem == nil {
		return false
	}
	if cg.mem.v2 {
		return eventCount(cg.mem.dir, "memory.events", "oom_kill") > 0
	}
	return eventCount(cg.mem.dir, "memory.oom_control", "oom_kill") > 0
}

// pidsExhausted reports whether a fork failed at the pids limit.
func (cg *cgroups) pidsExhausted() bool {
	return cg.pids != nil && eventCount(cg.pids.dir, "pids.events", "max") > 0
}

// kill sends SIGKILL to every process left in the set.
func (cg *cgroups) kill() {
	for _, d := range cg.dirs {
		if writeCgroupFile(d, "cgroup.kill", "1") == nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(d, "cgroup.procs"))
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil && pid > 0 {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	}
}

// remove deletes the cgroups, waiting briefly for killed processes to go.
func (cg *cgroups) remove() {
	for _, d := range cg.dirs {
		for i := 0; i < 100; i++ {
			err := os.Remove(d)
			if err == nil || errors.Is(err, os.ErrNotExist) {
				break
			}
			cg.kill()
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// eventCount reads the counter key from a "key value" per line file.
func eventCount(dir, file, key string) int64 {
	b, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, " "); ok && k == key {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}

// writeCgroupFile writes an existing control file (never creating one).
func writeCgroupFile(dir, name, value string) error {
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(value)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("cgroup %s/%s: %w", dir, name, err)
	}
	return nil
}

func randomHex() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
