package sandbox

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// limitModes are the two ways limits are enforced: a cgroup per command
// (v1 or v2, whichever this host offers) and the rlimit fallback. The
// fallback runs commands as a user of their own: RLIMIT_NPROC counts every
// process of the user on the host, other sandboxes' too.
var limitModes = []struct {
	name, cgroupParent string
	uid                int
}{{"cgroup", "", 0}, {"rlimit", NoCgroups, 23457}}

// testLimits are the limits the real-bubblewrap tests run under.
var testLimits = Limits{MemoryBytes: 256 << 20, MaxProcs: 64, MaxOutput: 1 << 20, MaxFileSize: 1 << 20, Timeout: 60 * time.Second}

// TestLimitsStopHostileCommands runs each kind of runaway command under
// the sandbox with limits that come only from WithLimits (the Specs ask
// for none), with cgroups and with the rlimit fallback.
func TestLimitsStopHostileCommands(t *testing.T) {
	for _, mode := range limitModes {
		t.Run(mode.name, func(t *testing.T) {
			b, dir := newSandbox(t)
			b.CgroupParent = mode.cgroupParent
			b.UID, b.GID = mode.uid, mode.uid
			r := WithLimits(b, testLimits)
			probe := installHelper(t, dir)
			rlimitNote := func(res *Result, what string) {
				t.Helper()
				if mode.cgroupParent == NoCgroups && !strings.Contains(res.Note, what) {
					t.Errorf("Note = %q, want it to say %s enforced the limit", res.Note, what)
				}
			}

			t.Run("memory", func(t *testing.T) {
				for _, hog := range []string{"alloc:1024", "big:1024"} {
					res := run(t, r, Spec{Dir: dir, Env: []string{helperEnv + "=" + hog}, Argv: []string{probe}})
					if res.OK() || bytes.Contains(res.Stdout, []byte(" 1024 MiB")) {
						t.Fatalf("%s: the command touched 1 GiB under a 256 MiB limit", hog)
					}
					// Without cgroups, Go's runtime refused memory by RLIMIT_DATA
					// sometimes crashes with SIGSEGV instead of saying so: the
					// note then only says the failure may be a lack of memory.
					if mode.cgroupParent == NoCgroups && res.Limit == "" && strings.Contains(res.Note, "may be a lack of memory") {
						continue
					}
					if res.Limit != LimitMemory || !strings.Contains(res.Note, "stopped by the memory limit (256 MiB") {
						t.Errorf("%s: Limit %q, Note %q: want memory, 256 MiB", hog, res.Limit, res.Note)
					}
					rlimitNote(res, "no cgroup available")
				}
			})

			t.Run("pids", func(t *testing.T) {
				mark := processMark(t)
				// Without cgroups, other processes of the sandbox user count
				// against RLIMIT_NPROC: the bomb is stopped when its shell
				// says a fork failed, before perfbot counts 64 of its own.
				res := run(t, r, Spec{Dir: dir, Env: []string{mark}, Timeout: 20 * time.Second, Argv: sh("b() { b | b & }; b; sleep 100")})
				if res.Limit != LimitPids || !strings.Contains(res.Note, "stopped by the process limit (64") {
					t.Errorf("Limit %q, Note %q: want pids, 64", res.Limit, res.Note)
				}
				if strings.Contains(res.Note, "timeout") {
					t.Errorf("Note = %q: the bomb ran to its timeout instead of being stopped at its limit", res.Note)
				}
				rlimitNote(res, "no cgroup available")
				if left := waitMarkedProcs(t, mark); left > 0 {
					t.Errorf("%d sandbox processes outlived the fork bomb", left)
				}
			})

			t.Run("output", func(t *testing.T) {
				res := run(t, r, Spec{Dir: dir, Argv: sh("head -c 3145728 /dev/zero")})
				if res.Limit != LimitOutput || len(res.Stdout) != 1<<20 || res.Dropped != 2<<20 {
					t.Errorf("Limit %q, kept %d, dropped %d: want output, 1 MiB kept, 2 MiB dropped", res.Limit, len(res.Stdout), res.Dropped)
				}
			})

			t.Run("file size", func(t *testing.T) {
				// A shell tool dies of SIGXFSZ; a Go program gets EFBIG.
				for _, spec := range []Spec{
					{Dir: dir, Argv: sh("head -c 3145728 /dev/zero > big")},
					{Dir: dir, Env: []string{helperEnv + "=write:3"}, Argv: []string{probe}},
				} {
					res := run(t, r, spec)
					if res.OK() || bytes.Contains(res.Stdout, []byte("wrote 3")) {
						t.Errorf("%q wrote 3 MiB under a 1 MiB file-size limit", spec.Argv)
					}
					if res.Limit != LimitFileSize || !strings.Contains(res.Note, "file-size limit (1 MiB)") {
						t.Errorf("%q: Limit %q, Note %q: want filesize, 1 MiB", spec.Argv, res.Limit, res.Note)
					}
					if fi, err := os.Stat(filepath.Join(dir, "big")); err != nil || fi.Size() > 1<<20 {
						t.Errorf("big: %v, %v: want at most 1 MiB written", fi, err)
					}
					os.Remove(filepath.Join(dir, "big"))
				}
			})

			t.Run("within limits", func(t *testing.T) {
				res := run(t, r, Spec{Dir: dir, Env: []string{helperEnv + "=alloc:32"}, Argv: []string{probe}})
				if !res.OK() || res.Limit != "" {
					t.Errorf("a command within its limits: exit %d, Limit %q, Note %q", res.ExitCode, res.Limit, res.Note)
				}
			})
		})
	}
}

func TestLimitsApply(t *testing.T) {
	l := Limits{MemoryBytes: 100, MaxProcs: 10, MaxOutput: 1000, MaxFileSize: 50, Timeout: time.Minute, Network: Loopback}
	got := l.Apply(Spec{MemoryBytes: 500, MaxProcs: 5, Timeout: time.Hour, Network: NoNetwork})
	want := Spec{MemoryBytes: 100, MaxProcs: 5, MaxOutput: 1000, MaxFileSize: 50, Timeout: time.Minute, Network: Loopback}
	if got.MemoryBytes != want.MemoryBytes || got.MaxProcs != want.MaxProcs || got.MaxOutput != want.MaxOutput ||
		got.MaxFileSize != want.MaxFileSize || got.Timeout != want.Timeout || got.Network != want.Network {
		t.Errorf("Apply = %+v, want %+v", got, want)
	}
	if n := l.Apply(Spec{Network: FullNetwork}).Network; n != FullNetwork {
		t.Errorf("a build step's network became %d", n)
	}
	if s := (Limits{}).Apply(Spec{Timeout: time.Second}); s.Timeout != time.Second || s.MemoryBytes != 0 {
		t.Errorf("no limits changed the spec: %+v", s)
	}
	if s := l.String(); s != "memory 100 bytes, processes 10, output 1000 bytes, file size 50 bytes, timeout 1m0s, network loopback" {
		t.Errorf("String = %q", s)
	}
}

// TestLimitsInSession: a session (a suite's server beside its benchmark)
// starts through WithLimits and Guard, and its commands get the limits.
func TestLimitsInSession(t *testing.T) {
	b, dir := newSandbox(t)
	r := Guard{Runner: WithLimits(b, testLimits)}
	s := startSession(t, r, SessionSpec{Writable: []string{dir}})
	for _, c := range []struct{ script, limit string }{
		{"head -c 3145728 /dev/zero > big", LimitFileSize},
		{"b() { b | b & }; b; sleep 100", LimitPids},
	} {
		res := run(t, r, Spec{Dir: dir, Session: s, Argv: sh(c.script)})
		if res.Limit != c.limit {
			t.Errorf("%s in a session: Limit %q, Note %q: want %s", c.script, res.Limit, res.Note, c.limit)
		}
	}
}
