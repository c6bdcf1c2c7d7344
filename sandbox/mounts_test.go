package sandbox

import (
	"io/fs"
	"strings"
	"testing"
)

// fakeFS is a statFunc over a fixed set of paths.
type fakeFS map[string]pathInfo

func (f fakeFS) stat(p string) pathInfo { return f[p] }

func dir(mode fs.FileMode) pathInfo { return pathInfo{exists: true, dir: true, mode: mode} }

var file = pathInfo{exists: true, mode: 0o600}

func TestMountPlanArgs(t *testing.T) {
	host := fakeFS{
		"/": dir(0o755), "/tmp": dir(0o1777), "/var": dir(0o755), "/var/tmp": dir(0o1777),
		"/root": dir(0o700), "/root/go": dir(0o755), "/root/go/pkg": dir(0o755), "/root/go/pkg/mod": dir(0o755),
		"/home": dir(0o755), "/etc": dir(0o755), "/etc/perfbot.yaml": file,
		"/srv": dir(0o755), "/srv/jobs": dir(0o755), "/srv/jobs/1": dir(0o755), "/srv/jobs/1/wt": dir(0o755),
		"/srv/jobs/1/cache": dir(0o755), "/private": dir(0o700), "/private/wt": dir(0o755),
		"/tmp/t": dir(0o700), "/tmp/t/wt": dir(0o755),
	}
	tests := []struct {
		name    string
		spec    Spec
		hidden  []string
		uid     int
		want    string // expected args joined by spaces
		wantErr string
	}{{
		name:   "worktree and cache, home hidden",
		spec:   Spec{Dir: "/srv/jobs/1/wt", Writable: []string{"/srv/jobs/1/cache"}},
		hidden: []string{"/root", "/home", "/run/secrets", "/etc/perfbot.yaml"},
		uid:    65534,
		want: "--perms 1777 --tmpfs /tmp --perms 0755 --tmpfs /root --perms 0755 --tmpfs /home " +
			"--perms 1777 --tmpfs /var/tmp --ro-bind /dev/null /etc/perfbot.yaml " +
			"--bind /srv/jobs/1/wt /srv/jobs/1/wt --bind /srv/jobs/1/cache /srv/jobs/1/cache",
	}, {
		name:   "module cache under a hidden directory",
		spec:   Spec{Dir: "/srv/jobs/1/wt", ReadOnly: []string{"/root/go/pkg/mod"}},
		hidden: []string{"/root"},
		uid:    65534,
		want: "--perms 1777 --tmpfs /tmp --perms 0755 --tmpfs /root --perms 1777 --tmpfs /var/tmp " +
			"--perms 0755 --dir /root/go --perms 0755 --dir /root/go/pkg --ro-bind /root/go/pkg/mod /root/go/pkg/mod " +
			"--bind /srv/jobs/1/wt /srv/jobs/1/wt",
	}, {
		name: "worktree under the private /tmp",
		spec: Spec{Dir: "/tmp/t/wt"},
		uid:  65534,
		want: "--perms 1777 --tmpfs /tmp --perms 1777 --tmpfs /var/tmp --perms 0755 --dir /tmp/t --bind /tmp/t/wt /tmp/t/wt",
	}, {
		name:    "unreachable worktree",
		spec:    Spec{Dir: "/private/wt"},
		uid:     65534,
		wantErr: "cannot reach /private/wt: directory /private is mode 0700",
	}, {
		name: "unreachable is fine without a uid drop",
		spec: Spec{Dir: "/private/wt"},
		uid:  -1,
		want: "--perms 1777 --tmpfs /tmp --perms 1777 --tmpfs /var/tmp --bind /private/wt /private/wt",
	}, {
		name:    "missing worktree",
		spec:    Spec{Dir: "/srv/nope"},
		uid:     65534,
		wantErr: "working directory path /srv/nope does not exist",
	}, {
		name:    "relative writable",
		spec:    Spec{Dir: "/srv/jobs/1/wt", Writable: []string{"cache"}},
		wantErr: `writable path "cache" is not absolute`,
	}, {
		name:    "hiding the root",
		spec:    Spec{Dir: "/srv/jobs/1/wt"},
		hidden:  []string{"/"},
		wantErr: "hidden path",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mountPlan{checkUID: tt.uid, checkGID: tt.uid, stat: host.stat}
			args, err := p.args(tt.spec, tt.hidden)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(args, " "); got != tt.want {
				t.Errorf("args:\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestBwrapArgv(t *testing.T) {
	spec := Spec{Dir: "/w", Env: []string{"PATH=/usr/bin", "HOME=/tmp"}, Argv: []string{"go", "test"}}
	tests := []struct {
		name    string
		network Network
		root    bool
		want    []string // must appear, in order
		not     []string
	}{
		{"root no network", NoNetwork, true,
			[]string{"--unshare-pid", "--unshare-net", "--ro-bind / /", "--proc /proc", "--chdir /w", "--clearenv",
				"--setenv PATH /usr/bin", "--cap-add CAP_SETUID", "-- /usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all -- go test"},
			[]string{"--unshare-user"}},
		{"user loopback", Loopback, false,
			[]string{"--unshare-net", "--unshare-user --disable-userns", "-- go test"},
			[]string{"setpriv", "--cap-add"}},
		{"full network", FullNetwork, true, []string{"--die-with-parent"}, []string{"--unshare-net"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := spec
			s.Network = tt.network
			argv, err := bwrapArgv("/usr/bin/bwrap", "/usr/bin/setpriv", s, nil, tt.root, 65534, 65534)
			if err != nil {
				t.Fatal(err)
			}
			line := strings.Join(argv, " ")
			pos := 0
			for _, w := range tt.want {
				i := strings.Index(line[pos:], w)
				if i < 0 {
					t.Fatalf("%q missing (in order) from %s", w, line)
				}
				pos += i
			}
			for _, w := range tt.not {
				if strings.Contains(line, w) {
					t.Errorf("%q in %s", w, line)
				}
			}
		})
	}
	if _, err := bwrapArgv("bwrap", "", Spec{Env: []string{"NOVALUE"}, Argv: []string{"x"}}, nil, false, 1, 1); err == nil {
		t.Error("an environment entry without = was accepted")
	}
}
