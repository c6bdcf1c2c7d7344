// Package config loads and validates perfbot's config.yaml: the project, its
// benchmark suites, and where answers go. Errors name the file and line.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Config is a whole config.yaml.
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
	// Venues, Service, Store and Schedules are read by the service and the
	// posting clients; they are kept here as raw YAML so that each
	// package decodes its own section.
	Venues    yaml.Node `yaml:"venues"`
	Service   yaml.Node `yaml:"service"`
	Store     yaml.Node `yaml:"store"`
	Triggers  yaml.Node `yaml:"triggers"`
	Schedules yaml.Node `yaml:"schedules"`
	Digest    yaml.Node `yaml:"digest"`

	// File is the path the config was read from.
	File string `yaml:"-"`
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
}

// Load reads and validates the config file at path.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	return Parse(data, path)
}

// Parse decodes and validates a config from data; file names it in errors.
func Parse(data []byte, file string) (*Config, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var c Config
	if err := dec.Decode(&c); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: empty config", file)
		}
		return nil, fmt.Errorf("%s: %w", file, unwrapYAML(err))
	}
	c.File = file
	for i := range c.Suites {
		if len(c.Suites[i].Variants) == 0 {
			c.Suites[i].Variants = c.Variants
		}
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &c, nil
}

// unwrapYAML turns yaml's "yaml: line N: msg" into "line N: msg".
func unwrapYAML(err error) error {
	var te *yaml.TypeError
	if errors.As(err, &te) {
		return fmt.Errorf("%s", joinLines(te.Errors))
	}
	msg := err.Error()
	if len(msg) > 6 && msg[:6] == "yaml: " {
		msg = msg[6:]
	}
	return errors.New(msg)
}

func joinLines(ss []string) string {
	var b bytes.Buffer
	for i, s := range ss {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(s)
	}
	return b.String()
}

// Validate checks what the YAML decoder cannot: required fields, known
// parsers and presets, parameters the command uses.
func (c *Config) Validate() error {
	var errs []error
	for _, s := range c.Suites {
		if err := s.validate(); err != nil {
			errs = append(errs, fmt.Errorf("%s:%d: suite %q: %w", c.File, s.Line, s.Name, err))
		}
	}
	switch c.Sandbox.Mode {
	case "", "bubblewrap", "none":
	default:
		errs = append(errs, fmt.Errorf("%s: sandbox.mode %q: want bubblewrap or none", c.File, c.Sandbox.Mode))
	}
	switch c.Sandbox.OnMissing {
	case "", "refuse", "warn":
	default:
		errs = append(errs, fmt.Errorf("%s: sandbox.on_missing %q: want refuse or warn", c.File, c.Sandbox.OnMissing))
	}
	return errors.Join(errs...)
}

// Duration is a time.Duration written as "30s", "10m" or "1h30m".
type Duration time.Duration

// UnmarshalYAML reads a Go duration string.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	var s string
	if err := n.Decode(&s); err != nil {
		return err
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("line %d: %q is not a duration such as 30s, 10m or 1h", n.Line, s)
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
	var s string
	if err := n.Decode(&s); err != nil {
		return err
	}
	v, err := ParseBudget(s)
	if err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
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
