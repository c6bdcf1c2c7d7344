package doctor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/sandbox"
	"github.com/perfbot/perfbot/store"
)

// toolTimeout bounds one tool run.
const toolTimeout = 60 * time.Second

// Host checks what this host gives the config: the store, git, the
// sandbox, cgroups, perf and valgrind.
func Host(ctx context.Context, cfg *config.Config, opt Options) []Result {
	opt = opt.withDefaults()
	rs := []Result{Store(ctx, cfg), Git(ctx), Sandbox(ctx, cfg), Cgroups(cfg), Freezer(cfg), Perf(ctx, cfg), Valgrind(ctx, cfg)}
	return scrub(rs, redactor(cfg, opt))
}

// Store opens the history (applying its migrations, as serve does) and
// reads its schema version. A SQLite file that does not exist yet is not
// created: its directory must be writable.
func Store(ctx context.Context, cfg *config.Config) Result {
	const name = "store"
	ctx, cancel := context.WithTimeout(ctx, toolTimeout)
	defer cancel()
	dsn := cfg.StoreDSN()
	where := dsn
	if cfg.Store.Driver == "postgres" {
		if dsn == "" {
			return Result{Name: name, Status: Fail, Reason: fmt.Sprintf("store.url_env names %s, which is empty: no PostgreSQL URL", cfg.Store.URLEnv)}
		}
		where = "postgres"
	} else if _, err := os.Stat(dsn); errors.Is(err, os.ErrNotExist) {
		dir := filepath.Dir(dsn)
		f, err := os.CreateTemp(dir, ".perfbot-doctor-")
		if err != nil {
			return Result{Name: name, Status: Fail, Reason: fmt.Sprintf("sqlite %s does not exist and cannot be created: %v", dsn, err)}
		}
		f.Close()
		os.Remove(f.Name())
		return Result{Name: name, Status: OK, Reason: fmt.Sprintf("sqlite %s does not exist yet; serve creates it (%s is writable)", dsn, dir)}
	}
	st, err := store.Open(ctx, cfg.Store.Driver, dsn)
	if err != nil {
		return Result{Name: name, Status: Fail, Reason: err.Error()}
	}
	defer st.Close()
	v, err := st.SchemaVersion(ctx)
	if err != nil {
		return Result{Name: name, Status: Fail, Reason: fmt.Sprintf("%s: schema version: %v", where, err)}
	}
	return Result{Name: name, Status: OK, Reason: fmt.Sprintf("%s %s: schema version %d", cfg.Store.Driver, where, v)}
}

// Git checks that git runs: every job makes worktrees and applies
// patches with it.
func Git(ctx context.Context) Result {
	out, err := run(ctx, "git", "--version")
	if err != nil {
		return Result{Name: "git", Status: Fail, Reason: err.Error() + " (Debian: apt-get install git)"}
	}
	return Result{Name: "git", Status: OK, Reason: out}
}

// Sandbox starts a trivial command in the sandbox the config asks for,
// with its user, cgroup parent and hidden paths. A sandbox that cannot
// run fails unless sandbox.on_missing is warn.
func Sandbox(ctx context.Context, cfg *config.Config) Result {
	const name = "bubblewrap"
	s := cfg.Sandbox
	if s.Mode == sandbox.ModeNone {
		return Result{Name: name, Status: Warn, Reason: "sandbox.mode is none: patches run on the host with perfbot's own rights"}
	}
	parent, later := unitCgroup(s.CgroupParent)
	b := &sandbox.Bubblewrap{UID: s.UID, GID: s.GID, CgroupParent: parent}
	for _, h := range s.HiddenPaths {
		if !filepath.IsAbs(h) && cfg.File != "" {
			h = filepath.Join(filepath.Dir(cfg.File), h)
		}
		if abs, err := filepath.Abs(h); err == nil {
			b.HiddenPaths = append(b.HiddenPaths, abs)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, toolTimeout)
	defer cancel()
	if err := b.Check(ctx); err != nil {
		if s.OnMissing == sandbox.OnMissingWarn {
			return Result{Name: name, Status: Warn, Reason: fmt.Sprintf("cannot run (%v); sandbox.on_missing is warn: patches would run unsandboxed", err)}
		}
		return Result{Name: name, Status: Fail, Reason: fmt.Sprintf("%v (Debian: apt-get install bubblewrap; user namespaces must be allowed)", err)}
	}
	version, _ := run(ctx, "bwrap", "--version")
	return Result{Name: name, Status: OK, Reason: strings.TrimSpace(version + " ran /bin/true in the sandbox" + later)}
}

// unitCgroup returns the cgroup parent to try now: a systemd unit's own
// cgroup (/sys/fs/cgroup/system.slice/perfbot.service) exists only while
// the unit runs, so before it is started the checks run without it and
// later says so ("" when the parent can be tried as it is).
func unitCgroup(parent string) (now, later string) {
	if !pendingUnit(parent) {
		return parent, ""
	}
	return "", fmt.Sprintf(" (without sandbox.cgroup_parent, whose %s exists once the unit runs)", filepath.Base(parent))
}

// pendingUnit reports a cgroup_parent that is a systemd service's cgroup
// not created yet: its unit has not been started.
func pendingUnit(parent string) bool {
	if !strings.HasSuffix(parent, ".service") {
		return false
	}
	_, err := os.Stat(parent)
	return errors.Is(err, fs.ErrNotExist)
}

// Cgroups sets up and removes the cgroups one command would get. A
// cgroup_parent that is set but unusable fails; without one, commands
// fall back to rlimits, which is a warning.
func Cgroups(cfg *config.Config) Result {
	const name = "cgroups"
	if p := cfg.Sandbox.CgroupParent; pendingUnit(p) {
		return Result{Name: name, Status: Warn, Reason: fmt.Sprintf("ok after step 6 of docs/setup.md, the unit: sandbox.cgroup_parent %s is the cgroup systemd makes for %s when it starts (systemctl enable --now %s); run perfbot doctor again then", p, filepath.Base(p), strings.TrimSuffix(filepath.Base(p), ".service"))}
	}
	where, err := sandbox.CheckCgroups(cfg.Sandbox.CgroupParent)
	if err != nil {
		if cfg.Sandbox.CgroupParent != "" {
			return Result{Name: name, Status: Fail, Reason: fmt.Sprintf("sandbox.cgroup_parent %s: %v", cfg.Sandbox.CgroupParent, err)}
		}
		return Result{Name: name, Status: Warn, Reason: err.Error()}
	}
	return Result{Name: name, Status: OK, Reason: where}
}

// Freezer checks that the servers of a suite with setup can be frozen
// during the other sides' rounds: a warning when they cannot and a suite
// has setup.
func Freezer(cfg *config.Config) Result {
	const name = "freezer"
	var users []string
	for _, s := range cfg.Suites {
		if s.Setup != "" {
			users = append(users, s.Name)
		}
	}
	parent, later := unitCgroup(cfg.Sandbox.CgroupParent)
	where, err := sandbox.CheckFreezer(parent)
	switch {
	case err == nil:
		return Result{Name: name, Status: OK, Reason: where + later}
	case len(users) == 0:
		return Result{Name: name, Status: OK, Reason: fmt.Sprintf("%v; no suite has setup", err)}
	}
	return Result{Name: name, Status: Warn, Reason: fmt.Sprintf("%v (suites with setup: %s)", err, strings.Join(users, ", "))}
}

// Perf checks that perf stat counts, when a suite sets perf_stat.
func Perf(ctx context.Context, cfg *config.Config) Result {
	var users []string
	for _, s := range cfg.Suites {
		if s.PerfStat {
			users = append(users, s.Name)
		}
	}
	need := "perf_stat suites: " + strings.Join(users, ", ")
	_, err := run(ctx, "perf", "stat", "-x,", "-e", "task-clock", "-o", os.DevNull, "--", "true")
	switch {
	case err == nil:
		v, _ := run(ctx, "perf", "--version")
		return Result{Name: "perf", Status: OK, Reason: strings.TrimSpace(v + " counts task-clock")}
	case len(users) == 0:
		return Result{Name: "perf", Status: Warn, Reason: fmt.Sprintf("%v; no suite sets perf_stat", err)}
	}
	return Result{Name: "perf", Status: Fail, Reason: fmt.Sprintf("%v (%s; Debian: apt-get install linux-perf, and kernel.perf_event_paranoid <= 2)", err, need)}
}

// Valgrind checks that cachegrind runs under setarch -R, as the cpu-sim
// instrument runs it, when a suite uses that instrument.
func Valgrind(ctx context.Context, cfg *config.Config) Result {
	var users, auto []string
	instrument := "cpu-sim"
	for i := range cfg.Suites {
		if _, sim := cfg.Suites[i].Instruments(); sim {
			users = append(users, cfg.Suites[i].Name)
		}
		if cfg.Suites[i].AutoInstrument() {
			auto = append(auto, cfg.Suites[i].Name)
		}
	}
	if len(users) == 0 && len(auto) > 0 {
		if _, err := exec.LookPath("valgrind"); err != nil {
			return Result{Name: "valgrind", Status: Warn, Reason: "not installed: instrument auto in suites " + strings.Join(auto, ", ") + " falls back to wall time on a noisy host (Debian: apt-get install valgrind)"}
		}
		users, instrument = auto, "auto"
	}
	if len(users) == 0 {
		if v, err := run(ctx, "valgrind", "--version"); err == nil {
			return Result{Name: "valgrind", Status: OK, Reason: v + " (no suite uses instrument cpu-sim)"}
		}
		return Result{Name: "valgrind", Status: Warn, Reason: "not installed; no suite uses instrument cpu-sim"}
	}
	need := "instrument " + instrument + " in suites: " + strings.Join(users, ", ")
	if _, err := exec.LookPath("valgrind"); err != nil {
		return Result{Name: "valgrind", Status: Fail, Reason: fmt.Sprintf("valgrind is not installed (not on PATH): %s needs it (Debian: apt-get install valgrind)", need)}
	}
	_, err := run(ctx, "setarch", "-R", "valgrind", "--tool=cachegrind", "--cache-sim=yes", "--cachegrind-out-file="+os.DevNull, "true")
	if err != nil {
		return Result{Name: "valgrind", Status: Fail, Reason: fmt.Sprintf("%v (%s; Debian: apt-get install valgrind util-linux)", err, need)}
	}
	v, _ := run(ctx, "valgrind", "--version")
	return Result{Name: "valgrind", Status: OK, Reason: strings.TrimSpace(v + " ran cachegrind (" + need + ")")}
}

// run runs a tool and returns its first line of output, or an error with
// the first line of what it printed.
func run(ctx context.Context, name string, args ...string) (string, error) {
	path, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("%s is not installed (not on PATH)", name)
	}
	ctx, cancel := context.WithTimeout(ctx, toolTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	first, _, _ := strings.Cut(strings.TrimSpace(out.String()), "\n")
	if err != nil {
		if first == "" {
			first = err.Error()
		}
		return "", fmt.Errorf("%s %s: %s", name, strings.Join(args, " "), first)
	}
	return first, nil
}
