package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// DefaultUID and DefaultGID are the user and group a sandboxed command runs
// as when perfbot runs as root: nobody and nogroup on Debian.
const (
	DefaultUID = 65534
	DefaultGID = 65534
)

// DefaultHiddenPaths are the host paths a sandboxed command never sees:
// home directories, mounted secrets and perfbot's own configuration and
// state. Runners add their configured paths (the config file, a secrets
// directory) to these.
var DefaultHiddenPaths = []string{"/root", "/home", "/run/secrets", "/var/run/secrets", "/etc/perfbot", "/var/lib/perfbot"}

// Bubblewrap runs each command in a bubblewrap (bwrap) sandbox: its own
// mount, PID, IPC, UTS and cgroup namespaces, the host's file system
// read-only with the hidden paths replaced by empty directories, a private
// /tmp, only Spec.Dir and Spec.Writable writable, no network unless the
// Spec asks for it, and an environment of exactly Spec.Env.
//
// When perfbot runs as root, bwrap sets the sandbox up with root's rights
// and the command then runs as UID:GID (nobody by default) with no
// capabilities; Spec.Dir and Spec.Writable are lent to that user for the
// command and given back afterwards. Otherwise bwrap uses an unprivileged
// user namespace and the command runs as perfbot's own user, so the hidden
// paths must cover every file that user can read and the command must not
// (its secrets).
//
// Memory and process limits use a cgroup per command where one can be
// created (v2, or v1 memory and pids hierarchies), else rlimits; the file
// size limit is RLIMIT_FSIZE.
type Bubblewrap struct {
	// Path is the bwrap binary ("": bwrap on PATH).
	Path string
	// UID and GID are the sandbox user when perfbot runs as root
	// (0: DefaultUID and DefaultGID).
	UID, GID int
	// HiddenPaths are added to DefaultHiddenPaths and Spec.HiddenPaths.
	HiddenPaths []string
	// CgroupParent is a cgroup v2 directory delegated to perfbot, under
	// which each command gets its own cgroup ("": perfbot's own cgroup,
	// then the v1 hierarchies; NoCgroups: rlimits only).
	CgroupParent string
	// sessionV1 keeps a session's cgroup out of the v2 hierarchy, as on a
	// host whose v2 hierarchy has no freezer (tests).
	sessionV1 bool
}

var _ Runner = (*Bubblewrap)(nil)

// ids returns the sandbox user and group.
func (b *Bubblewrap) ids() (int, int) {
	uid, gid := b.UID, b.GID
	if uid == 0 {
		uid = DefaultUID
	}
	if gid == 0 {
		gid = DefaultGID
	}
	return uid, gid
}

// Run runs spec inside the sandbox.
func (b *Bubblewrap) Run(ctx context.Context, spec Spec) (*Result, error) {
	if len(spec.Argv) == 0 {
		return nil, errors.New("sandbox: empty command")
	}
	if spec.Dir == "" {
		return nil, errors.New("sandbox: a sandboxed command needs a working directory (Spec.Dir)")
	}
	if spec.Session != nil {
		return spec.Session.run(ctx, b, spec)
	}
	if spec.Service {
		return nil, errors.New("sandbox: a service command needs a session (Spec.Session)")
	}
	bwrap, err := b.bwrapPath()
	if err != nil {
		return nil, err
	}
	asRoot := os.Geteuid() == 0
	uid, gid := b.ids()
	var setpriv string
	if asRoot {
		if setpriv, err = exec.LookPath("setpriv"); err != nil {
			return nil, fmt.Errorf("sandbox: setpriv (util-linux) is needed to drop root: %w", err)
		}
	}
	mounts, err := b.mounts(spec, asRoot)
	if err != nil {
		return nil, err
	}
	argv, err := bwrapArgv(bwrap, setpriv, spec, mounts, asRoot, uid, gid)
	if err != nil {
		return nil, err
	}
	var lent *lending
	if asRoot {
		if lent, err = lend(append([]string{spec.Dir}, spec.Writable...), uid, gid); err != nil {
			return nil, err
		}
	}
	// The command runs as the sandbox user when perfbot is root, else as
	// perfbot's own unprivileged user: RLIMIT_NPROC applies either way.
	cmdUID := os.Getuid()
	if asRoot {
		cmdUID = uid
	}
	hooks := limitHooks(spec, b.CgroupParent, cmdUID, false)
	if hooks.gated {
		argv = gateArgv(argv)
	}
	host := spec
	host.Env = []string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin"}
	res, err := runProcessGroup(ctx, host, argv, hooks)
	if lent != nil {
		skipped, rerr := lent.restore()
		switch {
		case rerr != nil && res != nil:
			res.addNote(fmt.Sprintf("the worktree was not fully given back: %v", rerr))
		case rerr != nil:
			err = errors.Join(err, rerr)
		}
		if res != nil {
			if n := skippedNote(skipped); n != "" {
				res.addNote(n)
			}
		}
	}
	return res, err
}

// mounts returns the bwrap mount arguments of spec: the hidden paths
// (the runner's, the spec's and /run), the private scratch directories
// and the binds of spec's directories.
func (b *Bubblewrap) mounts(spec Spec, asRoot bool) ([]string, error) {
	plan := mountPlan{checkUID: -1, stat: hostStat}
	if asRoot {
		plan.checkUID, plan.checkGID = b.ids()
	}
	// No command reaches the host's services through their Unix sockets
	// in /run (D-Bus, the init system, databases), nor reads their state
	// there. A command with the network (a build step fetching modules)
	// needs the resolver's files, which may live in /run
	// (/etc/resolv.conf -> /run/systemd/resolve/stub-resolv.conf): those
	// files alone are bound read-only.
	hidden := append(append(append([]string(nil), DefaultHiddenPaths...), b.HiddenPaths...), spec.HiddenPaths...)
	hidden = append(hidden, "/run")
	if spec.Network == FullNetwork {
		spec.ReadOnly = append(append([]string(nil), spec.ReadOnly...), resolverFilesIn("/run")...)
	}
	return plan.args(spec, resolveHidden(hidden))
}

// resolverFiles are the files a resolver reads to look a name up.
var resolverFiles = []string{"/etc/resolv.conf", "/etc/hosts", "/etc/nsswitch.conf", "/etc/host.conf", "/etc/gai.conf"}

// resolverFilesIn returns the real paths of the resolver's files that lie
// under dir.
func resolverFilesIn(dir string) []string {
	var out []string
	for _, f := range resolverFiles {
		real, err := filepath.EvalSymlinks(f)
		if err == nil && within(real, dir) && !slices.Contains(out, real) {
			out = append(out, real)
		}
	}
	return out
}

func (b *Bubblewrap) bwrapPath() (string, error) {
	name := b.Path
	if name == "" {
		name = "bwrap"
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("sandbox: bubblewrap not found (%w): install it (Debian: apt-get install bubblewrap)", err)
	}
	return p, nil
}

// bwrapArgv builds the whole command line: bwrap, its options, and the
// command (behind setpriv when dropping root).
func bwrapArgv(bwrap, setpriv string, spec Spec, mounts []string, asRoot bool, uid, gid int) ([]string, error) {
	argv := []string{bwrap,
		"--die-with-parent", "--new-session",
		"--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
	}
	switch spec.Network {
	case NoNetwork, Loopback:
		// A new network namespace holds only its own loopback interface,
		// which bwrap brings up: nothing on the host, not even the host's
		// loopback, is reachable.
		argv = append(argv, "--unshare-net")
	case FullNetwork:
	default:
		return nil, fmt.Errorf("sandbox: unknown network setting %d", spec.Network)
	}
	if !asRoot {
		argv = append(argv, "--unshare-user", "--disable-userns")
	}
	argv = append(argv, "--hostname", "sandbox", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc")
	argv = append(argv, mounts...)
	argv = append(argv, "--chdir", spec.Dir, "--clearenv")
	for _, kv := range spec.Env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("sandbox: environment entry %q is not KEY=VALUE", kv)
		}
		argv = append(argv, "--setenv", k, v)
	}
	if asRoot {
		argv = append(argv, "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--",
			setpriv, fmt.Sprintf("--reuid=%d", uid), fmt.Sprintf("--regid=%d", gid),
			"--clear-groups", "--inh-caps=-all", "--")
	} else {
		argv = append(argv, "--")
	}
	return append(argv, spec.Argv...), nil
}
