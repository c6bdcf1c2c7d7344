package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/redact"
	"github.com/perfbot/perfbot/runner"
	"github.com/perfbot/perfbot/sandbox"
)

// secretVars are the environment variables the posting side reads secrets
// from; their values are redacted from every command's output and refused
// in any command's environment or arguments.
var secretVars = []string{"GITHUB_TOKEN", "JIRA_TOKEN", "JIRA_PASSWORD", "REVIEWBOARD_TOKEN", "SMTP_PASSWORD",
	"PERFBOT_WEBHOOK_SECRET", "PERFBOT_DATABASE_URL", "GITHUB_APP_PRIVATE_KEY"}

// allowedEnv names the host variables builds and benchmarks may see.
func allowedEnv() []string {
	allow := append([]string{}, sandbox.BaseEnv...)
	allow = append(allow, sandbox.GoEnv...)
	return append(allow, "JAVA_HOME", "MAVEN_OPTS", "CC", "CXX", "USER", "LOGNAME")
}

// setupSandbox chooses the command runner from the config and --no-sandbox,
// and fills the environment commands start from. Under bubblewrap, Go
// builds use perfbot's own module and build caches (the user's are hidden
// from the sandbox) and never stamp version control information (the
// repository's .git is outside the worktree).
func setupSandbox(ctx context.Context, opts *runner.Options, cfg *config.Config, noSandbox bool) (warning string, err error) {
	mode, onMissing := sandbox.ModeBubblewrap, sandbox.OnMissingRefuse
	if cfg != nil {
		if cfg.Sandbox.Mode != "" {
			mode = cfg.Sandbox.Mode
		}
		if cfg.Sandbox.OnMissing != "" {
			onMissing = cfg.Sandbox.OnMissing
		}
	}
	if noSandbox {
		mode = sandbox.ModeNone
	}
	r, warning, err := sandbox.Choose(mode, onMissing)
	if err != nil {
		return "", err
	}
	var secrets []string
	for _, name := range secretVars {
		if v := os.Getenv(name); v != "" {
			secrets = append(secrets, v)
		}
	}
	red := redact.New(secrets...)
	opts.Sandbox = sandbox.Guard{Runner: r, Secrets: red}
	var set []string
	if _, bwrap := r.(*sandbox.Bubblewrap); bwrap {
		opts.SandboxName = "bubblewrap (no network for benchmarks, unprivileged user, secrets hidden)"
		gocache := filepath.Join(opts.CacheDir, "go-build")
		gomod := filepath.Join(opts.CacheDir, "go-mod")
		for _, d := range []string{gocache, gomod} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				return "", err
			}
		}
		opts.BuildWritable = []string{gocache, gomod}
		set = []string{"GOCACHE=" + gocache, "GOMODCACHE=" + gomod, "GOFLAGS=-mod=mod -buildvcs=false", "GOTOOLCHAIN=local"}
		if proxy := goEnv(ctx, "GOPROXY"); proxy != "" {
			set = append(set, "GOPROXY="+proxy)
		}
	} else {
		opts.SandboxName = "none"
		// Unsandboxed commands share the user's Go caches.
		for _, name := range []string{"GOCACHE", "GOMODCACHE"} {
			if v := goEnv(ctx, name); v != "" {
				set = append(set, name+"="+v)
			}
		}
		if home := os.Getenv("HOME"); home != "" {
			set = append(set, "HOME="+home)
		}
	}
	env, err := sandbox.Environ(os.Environ(), allowedEnv(), set)
	if err != nil {
		return "", err
	}
	opts.Env = env
	if warning != "" {
		opts.SandboxName += ": " + warning
	}
	return warning, nil
}

// goEnv asks the go command for one of its settings.
func goEnv(ctx context.Context, name string) string {
	out, err := exec.CommandContext(ctx, "go", "env", name).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
