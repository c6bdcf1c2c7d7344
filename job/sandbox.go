package job

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/redact"
	"github.com/perfbot/perfbot/runner"
	"github.com/perfbot/perfbot/sandbox"
)

// secretVars are the environment variables the posting side reads secrets
// from by default; their values are redacted from every command's output
// and refused in any command's environment or arguments. The variables
// config.yaml names (venues' *_env keys) are added to them.
var secretVars = []string{"GITHUB_TOKEN", "GITLAB_TOKEN", "JIRA_TOKEN", "JIRA_PASSWORD", "REVIEWBOARD_TOKEN", "GERRIT_HTTP_PASSWORD", "SMTP_PASSWORD",
	"PERFBOT_WEBHOOK_SECRET", "PERFBOT_DATABASE_URL", "GITHUB_APP_PRIVATE_KEY"}

// allowedEnv names the host variables builds and benchmarks may see.
func allowedEnv() []string {
	allow := append([]string{}, sandbox.BaseEnv...)
	allow = append(allow, sandbox.GoEnv...)
	return append(allow, "JAVA_HOME", "MAVEN_OPTS", "CC", "CXX", "USER", "LOGNAME")
}

// Secrets are the secret values perfbot holds and the files they came
// from.
type Secrets struct {
	Values []string
	Files  []string
}

// maxSecretFile bounds what is read of one secret file.
const maxSecretFile = 1 << 20

// ReadSecrets gathers the secrets of this process: the values of
// secretVars, of the variables config.yaml's venues and store sections
// name (*_env keys, user names aside), of the files they name (*_file
// keys), and of the files named by *_FILE variables that look like
// credentials (GITHUB_APP_PRIVATE_KEY_FILE). The config file is read
// again as plain YAML, so that every venue's keys count, whichever
// package decodes them.
func ReadSecrets(cfgFile string, environ []string) (Secrets, error) {
	var s Secrets
	env := map[string]string{}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	names := append([]string(nil), secretVars...)
	var files []string
	if cfgFile != "" {
		data, err := os.ReadFile(cfgFile)
		if err != nil {
			return s, fmt.Errorf("config: %w", err)
		}
		var doc yaml.Node
		if err := yaml.Unmarshal(data, &doc); err != nil {
			return s, fmt.Errorf("%s: %w", cfgFile, err)
		}
		if len(doc.Content) > 0 {
			for _, section := range []string{"venues", "store"} {
				walkKeys(mappingValue(doc.Content[0], section), func(key, value string) {
					switch {
					case strings.HasSuffix(key, "_file"):
						files = append(files, value)
					case strings.HasSuffix(key, "_env") && !strings.Contains(key, "user"):
						names = append(names, value)
					}
				})
			}
		}
	}
	for k, v := range env {
		if strings.HasSuffix(k, "_FILE") && sandbox.LooksSecret(strings.TrimSuffix(k, "_FILE")) && v != "" {
			files = append(files, v)
		}
	}
	for _, n := range names {
		if v := env[n]; v != "" {
			s.Values = append(s.Values, v)
		}
	}
	sort.Strings(files)
	for _, f := range files {
		abs, err := filepath.Abs(f)
		if err != nil {
			continue
		}
		s.Files = append(s.Files, abs)
		// A file that cannot be read holds no secret this process uses:
		// it is hidden all the same.
		if fh, err := os.Open(abs); err == nil {
			b, _ := io.ReadAll(io.LimitReader(fh, maxSecretFile))
			fh.Close()
			if v := strings.TrimSpace(string(b)); v != "" {
				s.Values = append(s.Values, v)
			}
		}
	}
	return s, nil
}

// redactor returns a Redactor for the secrets.
func (s Secrets) redactor() *redact.Redactor { return redact.New(s.Values...) }

// mappingValue returns the value of key in mapping node n (nil if none).
func mappingValue(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// walkKeys calls f for every key with a scalar value under n.
func walkKeys(n *yaml.Node, f func(key, value string)) {
	if n == nil {
		return
	}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if v.Kind == yaml.ScalarNode {
				if v.Value != "" {
					f(k.Value, v.Value)
				}
				continue
			}
			walkKeys(v, f)
		}
	case yaml.SequenceNode:
		for _, c := range n.Content {
			walkKeys(c, f)
		}
	}
}

// storeFiles returns the SQLite store files a config's store section
// names (perfbot.db, the service's default, when it names none), with
// their journal files.
func storeFiles(cfgFile string) []string {
	path := "perfbot.db"
	if cfgFile != "" {
		if data, err := os.ReadFile(cfgFile); err == nil {
			var doc struct {
				Store struct {
					Driver string `yaml:"driver"`
					Path   string `yaml:"path"`
				} `yaml:"store"`
			}
			if yaml.Unmarshal(data, &doc) == nil {
				if doc.Store.Driver == "postgres" {
					return nil
				}
				if doc.Store.Path != "" {
					path = doc.Store.Path
				}
			}
		}
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil
	}
	return []string{abs, abs + "-wal", abs + "-shm", abs + "-journal"}
}

// DBFiles returns the SQLite files of a history database, for the sandbox
// to hide; none for a postgres:// URL.
func DBFiles(dsn string) []string {
	if dsn == "" || strings.Contains(dsn, "://") {
		return nil
	}
	return []string{dsn, dsn + "-wal", dsn + "-shm", dsn + "-journal"}
}

// sandboxLimits are the limits config.yaml's sandbox section sets for every
// command.
func sandboxLimits(s config.Sandbox) sandbox.Limits {
	size := func(v string) int64 {
		n, _ := config.ParseSize(v) // checked when the config was loaded
		return n
	}
	l := sandbox.Limits{
		MemoryBytes: size(s.Memory),
		MaxProcs:    s.Processes,
		MaxOutput:   size(s.MaxOutput),
		MaxFileSize: size(s.MaxFileSize),
		Timeout:     time.Duration(s.Timeout),
	}
	if l.MaxProcs == 0 {
		l.MaxProcs = config.DefaultProcesses
	}
	if s.Network == "loopback" {
		l.Network = sandbox.Loopback
	}
	return l
}

// setupSandbox chooses the command runner from the config and --no-sandbox,
// with the config's limits applied to every command, and fills the
// environment commands start from. extraHidden are further host files no
// command may see (a --db file). Under bubblewrap, Go builds use perfbot's
// own module and build caches (the user's are hidden from the sandbox) and
// never stamp version control information (the repository's .git is
// outside the worktree).
func setupSandbox(ctx context.Context, opts *runner.Options, cfg *config.Config, noSandbox bool, extraHidden ...string) (warning string, err error) {
	sc := sandbox.Config{Mode: sandbox.ModeBubblewrap, OnMissing: sandbox.OnMissingRefuse}
	var lim sandbox.Limits
	var cfgFile string
	if cfg != nil {
		s := cfg.Sandbox
		if s.Mode != "" {
			sc.Mode = s.Mode
		}
		if s.OnMissing != "" {
			sc.OnMissing = s.OnMissing
		}
		sc.UID, sc.GID, sc.CgroupParent = s.UID, s.GID, s.CgroupParent
		for _, h := range s.HiddenPaths {
			// Relative to the config file's directory.
			if !filepath.IsAbs(h) && cfg.File != "" {
				h = filepath.Join(filepath.Dir(cfg.File), h)
			}
			if abs, err := filepath.Abs(h); err == nil {
				sc.HiddenPaths = append(sc.HiddenPaths, abs)
			}
		}
		lim = sandboxLimits(s)
		opts.PatchLimits = runner.PatchLimits{MaxFileSize: lim.MaxFileSize, Memory: lim.MemoryBytes, MaxFiles: s.MaxPatchFiles}
		if cfg.File != "" {
			if cfgFile, err = filepath.Abs(cfg.File); err != nil {
				return "", err
			}
		}
	} else {
		lim = sandboxLimits(config.Sandbox{})
	}
	if noSandbox {
		sc.Mode = sandbox.ModeNone
	}
	sec, err := ReadSecrets(cfgFile, os.Environ())
	if err != nil {
		return "", err
	}
	// The config file, the store and every secret file are hidden from
	// every command, whatever hidden_paths says.
	if cfgFile != "" {
		sc.HiddenPaths = append(sc.HiddenPaths, cfgFile)
	}
	sc.HiddenPaths = append(sc.HiddenPaths, storeFiles(cfgFile)...)
	sc.HiddenPaths = append(sc.HiddenPaths, sec.Files...)
	for _, h := range extraHidden {
		if abs, err := filepath.Abs(h); err == nil && h != "" {
			sc.HiddenPaths = append(sc.HiddenPaths, abs)
		}
	}
	if hide := cacheHidden(opts.CacheDir); hide != "" {
		sc.HiddenPaths = append(sc.HiddenPaths, hide)
	}
	r, warning, err := sc.Runner()
	if err != nil {
		return "", err
	}
	red := sec.redactor()
	opts.Sandbox = sandbox.Guard{Runner: sandbox.WithLimits(r, lim), Secrets: red}
	var set []string
	if _, bwrap := r.(*sandbox.Bubblewrap); bwrap {
		opts.SandboxName = "bubblewrap (no network for builds and benchmarks, unprivileged user, secrets hidden, private build caches)"
		// Each side gets its own build cache and the repository its own
		// module cache, which only the fetch step writes (runner.GoCaches);
		// builds run offline. The cache directory itself is hidden: a
		// command sees only what is bound back in for it.
		fetch := []string{}
		for _, name := range []string{"GOPROXY", "GOSUMDB"} {
			if v := goEnv(ctx, name); v != "" {
				fetch = append(fetch, name+"="+v)
			}
		}
		opts.GoCaches = &runner.GoCaches{FetchEnv: fetch}
		set = []string{"GOFLAGS=-mod=mod -buildvcs=false", "GOTOOLCHAIN=local", "GOPROXY=off", "GOSUMDB=off"}
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
	if l := lim.String(); l != "" {
		opts.SandboxName += "; limits per command: " + l
	}
	disk := config.Sandbox{}
	if cfg != nil {
		disk = cfg.Sandbox
	}
	if opts.DiskBudget = disk.DiskBudget(); opts.DiskBudget > 0 {
		opts.SandboxName += fmt.Sprintf("; disk per job %d MiB", opts.DiskBudget>>20)
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

// cacheHidden returns the cache directory as the sandbox hides it: every
// command sees only what is bound back in for it (its worktree, its side's
// build cache, its repository's module cache), not the cached clones nor
// another job's or repository's files. A directory that is or holds a
// command's private scratch directory (/tmp), or lies just below /, is not
// hidden ("").
func cacheHidden(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil || dir == "" || strings.Count(abs, "/") < 2 {
		return ""
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		abs = r
	}
	for _, scratch := range []string{"/tmp", "/var/tmp", "/dev/shm", os.TempDir()} {
		if abs == scratch || strings.HasPrefix(scratch, abs+"/") {
			return ""
		}
	}
	return abs
}

// goEnv asks the go command for one of its settings.
func goEnv(ctx context.Context, name string) string {
	out, err := exec.CommandContext(ctx, "go", "env", name).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
