// Package config loads and validates perfbot's config.yaml: the project, its
// benchmark suites, and where answers go. Errors name the file and line.
package config

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Config is a whole config.yaml, decoded once: what compare, serve, worker,
// digest and the venues read all comes from here.
type Config struct {
	// Project says which repository to benchmark.
	Project Project `yaml:"project"`
	// Suites are the benchmark suites, in file order.
	Suites Suites `yaml:"suites"`
	// Variants are the sides every suite compares unless it declares
	// variants of its own (on-heap against off-heap cache for all of a
	// project's suites).
	Variants Variants `yaml:"variants"`
	// Sandbox says how commands of untrusted patches are isolated.
	Sandbox Sandbox `yaml:"sandbox"`
	// Instrument is every suite's instrument unless it names its own
	// ("walltime", "cpu-sim", "both" or "auto").
	Instrument string `yaml:"instrument"`
	// Venues are where requests come from and answers go: one section
	// per venue, read by its intake and its poster alike.
	Venues Venues `yaml:"venues"`
	// Service configures perfbot serve and perfbot worker.
	Service Service `yaml:"service"`
	// Store says where the history and the queue live.
	Store Store `yaml:"store"`
	// Triggers says who may start runs of unmerged patches.
	Triggers Triggers `yaml:"triggers"`
	// Schedules are nightly runs and digests.
	Schedules []Schedule `yaml:"schedules"`
	// Digest configures the periodic digest.
	Digest Digest `yaml:"digest"`
	// Track configures post-merge tracking of branches.
	Track Track `yaml:"track"`
	// Templates is a folder whose files override the embedded report
	// and digest templates of the same name (markdown.tmpl, digest.tmpl,
	// markdown/*.tmpl ...); relative to the config file's folder.
	Templates string `yaml:"templates"`

	// File is the path the config was read from.
	File string `yaml:"-"`
	// nodes holds where each setting is in the file, for errors that
	// Validate finds after decoding.
	nodes *positions
}

// Project names the repository and its default baseline.
type Project struct {
	// Repo is a local path or a clone URL. A relative path is relative to
	// the config file's directory.
	Repo string `yaml:"repo"`
	// Branch is the default baseline.
	Branch string `yaml:"branch"`
}

// Sandbox configures isolation of builds and benchmark commands.
type Sandbox struct {
	// Mode is "bubblewrap" (the default) or "none".
	Mode string `yaml:"mode"`
	// OnMissing says what to do when bubblewrap cannot run: "refuse" (the
	// default) or "warn" (run unsandboxed and say so in the report).
	OnMissing string `yaml:"on_missing"`
	// Memory is a memory limit per command, such as "8GiB".
	Memory string `yaml:"memory"`
	// Processes limits the number of processes per command.
	Processes int `yaml:"processes"`
	// MaxOutput is the output kept per command, such as "64MiB".
	MaxOutput string `yaml:"max_output"`
	// Network for the benchmark step: "none" (default) or "loopback".
	Network string `yaml:"network"`
	// MaxFileSize caps the size of any file a command writes, such as
	// "4GiB" ("": none).
	MaxFileSize string `yaml:"max_file_size"`
	// MaxPatchFiles is the most files a patch may touch (0: 10000).
	MaxPatchFiles int `yaml:"max_patch_files"`
	// Disk is the disk budget of one job: what its worktrees, private
	// build caches and temporary directories may hold together, such as
	// "20GiB" ("": DefaultDisk; "none": no budget).
	Disk string `yaml:"disk"`
	// Timeout is the longest any one command may run; a suite's timeout
	// or build_timeout can only be shorter (0: the suites' own).
	Timeout Duration `yaml:"timeout"`
	// HiddenPaths are host paths no command may see, besides the built-in
	// ones, the config file, the store and the secret files. A relative
	// path is relative to the config file's directory.
	HiddenPaths []string `yaml:"hidden_paths"`
	// CgroupParent is a cgroup v2 directory delegated to perfbot for
	// per-command cgroups ("": automatic; "none": rlimits only).
	CgroupParent string `yaml:"cgroup_parent"`
	// UID and GID are the user commands run as when perfbot runs as root
	// (0: 65534, nobody and nogroup).
	UID int `yaml:"uid"`
	GID int `yaml:"gid"`
}

// DefaultDisk is a job's disk budget when sandbox.disk is not set.
const DefaultDisk = "20GiB"

// DiskBudget returns the job's disk budget in bytes (0: none).
func (s Sandbox) DiskBudget() int64 {
	switch s.Disk {
	case "none":
		return 0
	case "":
		n, _ := ParseSize(DefaultDisk)
		return n
	}
	n, _ := ParseSize(s.Disk) // checked when the config was loaded
	return n
}

// DefaultProcesses is the process limit of a command when
// sandbox.processes is not set.
const DefaultProcesses = 4096

// Load reads and validates the config file at path.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	return Parse(data, path)
}

// Parse decodes and validates a config from data; file names it in
// errors. The error, if any, is an Errors listing every mistake found,
// each at its line and column.
func Parse(data []byte, file string) (*Config, error) {
	c, errs := decode(data, file)
	if len(errs) > 0 {
		return nil, errs
	}
	return c, nil
}

// Check decodes and validates a config like Parse but returns what it
// could decode along with every mistake, so that a caller can report them
// all. The Config is nil when the file is not YAML at all.
func Check(data []byte, file string) (*Config, Errors) {
	return decode(data, file)
}

// Duration is a time.Duration written as "30s", "10m" or "1h30m".
type Duration time.Duration

// UnmarshalYAML reads a Go duration string.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	v, err := time.ParseDuration(n.Value)
	if n.Kind != yaml.ScalarNode || err != nil || v < 0 {
		return typeError("expected a duration such as 30s, 10m or 1h, got %s", describe(n))
	}
	*d = Duration(v)
	return nil
}

// Budget bounds the rounds adaptive sampling adds to a suite: a time
// ("10m"), or a number of rounds' worth of benchmark runs ("10x": as many
// runs of each side as 10 rounds of every benchmark would take, spent on
// the benchmarks still undecided).
type Budget struct {
	Time   time.Duration
	Rounds int
}

// IsZero reports whether no budget is set.
func (b Budget) IsZero() bool { return b.Time == 0 && b.Rounds == 0 }

// String writes the budget as ParseBudget reads it.
func (b Budget) String() string {
	switch {
	case b.Rounds > 0:
		return fmt.Sprintf("%dx", b.Rounds)
	case b.Time > 0:
		return b.Time.String()
	}
	return ""
}

// ParseBudget reads "10x" (rounds) or a Go duration such as "90s".
func ParseBudget(s string) (Budget, error) {
	if n, ok := strings.CutSuffix(s, "x"); ok {
		v, err := strconv.Atoi(n)
		if err != nil || v <= 0 {
			return Budget{}, fmt.Errorf("%q is not a budget: want a positive round count such as 10x, or a duration such as 5m", s)
		}
		return Budget{Rounds: v}, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return Budget{}, fmt.Errorf("%q is not a budget: want a positive round count such as 10x, or a duration such as 5m", s)
	}
	return Budget{Time: d}, nil
}

// UnmarshalYAML reads a budget string.
func (b *Budget) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return typeError("expected a budget such as 10x or 5m, got %s", describe(n))
	}
	v, err := ParseBudget(n.Value)
	if err != nil {
		return typeError("%s", err.Error())
	}
	*b = v
	return nil
}

// Set lets a Budget be a command-line flag.
func (b *Budget) Set(s string) error {
	v, err := ParseBudget(s)
	if err != nil {
		return err
	}
	*b = v
	return nil
}
