package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Modes and policies for Choose.
const (
	// ModeBubblewrap runs commands under Bubblewrap (the default).
	ModeBubblewrap = "bubblewrap"
	// ModeNone runs commands with Local: for patches the user trusts
	// (--no-sandbox).
	ModeNone = "none"
	// OnMissingRefuse refuses to run untrusted patches when bubblewrap
	// cannot run (the default).
	OnMissingRefuse = "refuse"
	// OnMissingWarn runs them with Local and a warning for the report.
	OnMissingWarn = "warn"
)

// Config is the sandbox part of perfbot's configuration.
type Config struct {
	// Mode is ModeBubblewrap ("" too) or ModeNone.
	Mode string
	// OnMissing is OnMissingRefuse ("" too) or OnMissingWarn.
	OnMissing string
	// UID and GID are the sandbox user when perfbot runs as root
	// (0: nobody/nogroup).
	UID, GID int
	// HiddenPaths are hidden besides DefaultHiddenPaths: the config file,
	// secret files, the store.
	HiddenPaths []string
	// CgroupParent is a delegated cgroup v2 directory ("": automatic;
	// NoCgroups: rlimits only).
	CgroupParent string
	// BwrapPath is the bwrap binary ("": bwrap on PATH).
	BwrapPath string
}

// Choose returns the Runner for the given mode and policy; see
// Config.Runner.
func Choose(mode, onMissing string) (Runner, string, error) {
	return Config{Mode: mode, OnMissing: onMissing}.Runner()
}

// Runner returns the Runner the configuration asks for, and a warning to
// print in every report when the runs are not sandboxed. With ModeBubblewrap
// it checks that bubblewrap works here; when it does not, the policy says
// whether that is an error (refuse) or a warning (warn, falling back to
// Local).
func (c Config) Runner() (Runner, string, error) {
	switch c.Mode {
	case ModeNone:
		return Local{CgroupParent: c.CgroupParent}, "The sandbox is off (--no-sandbox): the patch ran on the host with perfbot's own rights.", nil
	case "", ModeBubblewrap:
	default:
		return nil, "", fmt.Errorf("sandbox: unknown mode %q: want %q or %q", c.Mode, ModeBubblewrap, ModeNone)
	}
	switch c.OnMissing {
	case "", OnMissingRefuse, OnMissingWarn:
	default:
		return nil, "", fmt.Errorf("sandbox: unknown on-missing policy %q: want %q or %q", c.OnMissing, OnMissingRefuse, OnMissingWarn)
	}
	b := &Bubblewrap{Path: c.BwrapPath, UID: c.UID, GID: c.GID, HiddenPaths: c.HiddenPaths, CgroupParent: c.CgroupParent}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	err := b.Check(ctx)
	if err == nil {
		return b, "", nil
	}
	if c.OnMissing == OnMissingWarn {
		return Local{CgroupParent: c.CgroupParent}, fmt.Sprintf("WARNING: this run was NOT sandboxed: bubblewrap cannot run here (%v); "+
			"the patch ran on the host with perfbot's own rights.", err), nil
	}
	return nil, "", fmt.Errorf("%w; refusing to run an untrusted patch without a sandbox: "+
		"install bubblewrap (Debian: apt-get install bubblewrap) and allow user namespaces "+
		"(sysctl user.max_user_namespaces > 0, kernel.unprivileged_userns_clone=1 where it exists), "+
		"set sandbox on_missing: warn to run without it, or pass --no-sandbox for a patch you trust", err)
}

// Available reports whether bubblewrap can sandbox commands on this
// machine, and if not, why.
func Available() (ok bool, why string) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := (&Bubblewrap{}).Check(ctx); err != nil {
		return false, err.Error()
	}
	return true, ""
}

// Check runs a trivial command through b, with the same options a real
// one gets, and says what failed.
func (b *Bubblewrap) Check(ctx context.Context) error {
	dir, err := os.MkdirTemp("", "perfbot-sandbox-check-")
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o755); err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	// Only a real path is lent (see lend).
	if dir, err = filepath.EvalSymlinks(dir); err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	res, err := b.Run(ctx, Spec{Argv: []string{"/bin/true"}, Dir: dir, Timeout: 15 * time.Second})
	if err != nil {
		return err
	}
	if !res.OK() {
		msg := strings.TrimSpace(string(res.Stderr))
		if msg == "" {
			msg = fmt.Sprintf("exit status %d", res.ExitCode)
		}
		return fmt.Errorf("sandbox: bwrap failed: %s", msg)
	}
	return nil
}
