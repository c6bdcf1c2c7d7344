package sandbox

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const mountinfo = `24 30 0:22 / /sys rw,nosuid,nodev,noexec,relatime shared:7 - sysfs sysfs rw
28 24 0:25 / /sys/fs/cgroup ro,nosuid,nodev,noexec shared:9 - tmpfs tmpfs ro,mode=755
33 28 0:29 / /sys/fs/cgroup/memory rw,nosuid,nodev,noexec,relatime shared:14 - cgroup cgroup rw,memory
34 28 0:30 / /sys/fs/cgroup/pids rw,nosuid,nodev,noexec,relatime shared:15 - cgroup cgroup rw,pids
35 28 0:31 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid,nodev,noexec,relatime shared:16 - cgroup cgroup rw,cpu,cpuacct
36 28 0:32 / /sys/fs/cgroup/unified rw,nosuid,nodev,noexec,relatime shared:17 - cgroup2 cgroup2 rw,nsdelegate
37 30 0:33 / /mnt/with\040space rw - cgroup2 cgroup2 rw
`

func TestParseMountinfo(t *testing.T) {
	got, err := parseMountinfo(strings.NewReader(mountinfo))
	if err != nil {
		t.Fatal(err)
	}
	want := []mount{
		{"/sys/fs/cgroup/memory", "cgroup", []string{"rw", "memory"}},
		{"/sys/fs/cgroup/pids", "cgroup", []string{"rw", "pids"}},
		{"/sys/fs/cgroup/cpu,cpuacct", "cgroup", []string{"rw", "cpu", "cpuacct"}},
		{"/sys/fs/cgroup/unified", "cgroup2", []string{"rw", "nsdelegate"}},
		{"/mnt/with space", "cgroup2", []string{"rw"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}

func TestParseProcCgroup(t *testing.T) {
	got, err := parseProcCgroup(strings.NewReader("8:pids:/\n4:memory:/process_api/9d\n2:cpu,cpuacct:/x\n0::/user.slice/perfbot.service\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"pids": "/", "memory": "/process_api/9d", "cpu": "/x", "cpuacct": "/x", "": "/user.slice/perfbot.service"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestV2Parent(t *testing.T) {
	mounts, _ := parseMountinfo(strings.NewReader(mountinfo))
	paths := map[string]string{"": "/perfbot.service"}
	if got := (cgroupSystem{}).v2Parent(mounts, paths); got != "/sys/fs/cgroup/unified/perfbot.service" {
		t.Errorf("v2Parent = %q", got)
	}
	if got := (cgroupSystem{Parent: "/sys/fs/cgroup/perfbot"}).v2Parent(mounts, paths); got != "/sys/fs/cgroup/perfbot" {
		t.Errorf("configured v2Parent = %q", got)
	}
}

func TestEventCount(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "memory.events"), []byte("low 0\nhigh 0\nmax 12\noom 1\noom_kill 1\noom_group_kill 0\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "pids.events"), []byte("max 7\n"), 0o644)
	if n := eventCount(dir, "memory.events", "oom_kill"); n != 1 {
		t.Errorf("oom_kill = %d", n)
	}
	if n := eventCount(dir, "pids.events", "max"); n != 7 {
		t.Errorf("max = %d", n)
	}
	if n := eventCount(dir, "missing", "max"); n != 0 {
		t.Errorf("missing file = %d", n)
	}
}
