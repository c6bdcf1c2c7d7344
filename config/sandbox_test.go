package config

import (
	"strings"
	"testing"
	"time"
)

func TestSandboxSection(t *testing.T) {
	cfg, err := Parse([]byte(`sandbox:
  mode: bubblewrap
  memory: 256MiB
  processes: 64
  max_output: 1MB
  max_file_size: 1.5GiB
  timeout: 45m
  network: loopback
  hidden_paths: [/srv/secrets, keys/deploy.pem]
  cgroup_parent: none
  uid: 1500
  gid: 1500
`), "/etc/perfbot/config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := cfg.Sandbox
	if s.Memory != "256MiB" || s.Processes != 64 || s.MaxFileSize != "1.5GiB" || time.Duration(s.Timeout) != 45*time.Minute ||
		s.Network != "loopback" || s.CgroupParent != "none" || s.UID != 1500 || len(s.HiddenPaths) != 2 {
		t.Errorf("sandbox = %+v", s)
	}
	for in, want := range map[string]int64{"": 20 << 30, "none": 0, "512MiB": 512 << 20} {
		if got := (Sandbox{Disk: in}).DiskBudget(); got != want {
			t.Errorf("disk %q: budget %d, want %d", in, got, want)
		}
	}
}

func TestSandboxErrors(t *testing.T) {
	for _, c := range []struct{ yaml, want string }{
		{"sandbox:\n  max_file_size: lots\n", "sandbox.max_file_size"},
		{"sandbox:\n  network: full\n", "sandbox.network"},
		{"sandbox:\n  timeout: soon\n", "c.yaml:2"},
		{"sandbox:\n  hidden_path: [/x]\n", "hidden_path"},
		{"sandbox:\n  hidden_paths: [/]\n", "sandbox.hidden_paths"},
		{"sandbox:\n  cgroup_parent: perfbot\n", "sandbox.cgroup_parent"},
		{"sandbox:\n  max_patch_files: -1\n", "sandbox.max_patch_files"},
		{"sandbox:\n  disk: lots\n", "c.yaml:2:9: sandbox.disk: expected a job's disk budget such as 20GiB, or none"},
		{"sandbox:\n  disk: 0\n", "sandbox.disk"},
	} {
		_, err := Parse([]byte(c.yaml), "c.yaml")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err = %v, want it to contain %q", c.yaml, err, c.want)
		}
	}
}
