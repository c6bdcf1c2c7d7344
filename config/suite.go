package config

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/perfbot/perfbot/parse"
)

// Suite is one benchmark suite: how to build the code, the command that runs
// one round of benchmarks, its parameter matrix and how to read its output.
type Suite struct {
	// Name is the suite's key in the suites map.
	Name string `yaml:"-"`
	// Line is where the suite is defined in the config file.
	Line int `yaml:"-"`

	// Preset names a built-in suite kind whose defaults this one
	// overrides. "go" runs `go test -bench` over the repository's
	// packages (see GoOptions).
	Preset string `yaml:"preset"`
	// Dir is the directory, relative to the worktree, commands run in.
	Dir string `yaml:"dir"`
	// Build runs once per side before any round, in the side's worktree,
	// without network.
	Build string `yaml:"build"`
	// Fetch runs once per side before Build, through /bin/sh -c, with the
	// network and the repository's Go module cache writable, in an empty
	// directory and without the worktree: it downloads what the build
	// needs (go mod download of another module) and must run no code of
	// the repository.
	Fetch string `yaml:"fetch"`
	// Command runs one round at one matrix point, through /bin/sh -c.
	// {name} is replaced by the matrix parameter "name", {worktree} by
	// the side's worktree and {variant} by the side's name.
	Command string `yaml:"command"`
	// Matrix lists parameter values; every combination is run, in order.
	Matrix Matrix `yaml:"matrix"`
	// Parser names the output format ("auto" to detect it).
	Parser string `yaml:"parser"`
	// Output says what the parser reads: "stdout" (default), "stderr",
	// "combined", or "file:PATH" (relative to Dir) for tools that write
	// results to a file.
	Output string `yaml:"output"`
	// Count is how many rounds each side runs (default: a Go suite that
	// sets none of count, max_count and budget samples adaptively from
	// DefaultGoCount rounds, up to DefaultGoMaxCount, within
	// DefaultGoBudgetRounds; else DefaultGoFixedCount for Go,
	// DefaultCommandCount for a command, DefaultSimCount for cpu-sim);
	// with adaptive sampling (MaxCount or Budget) it is how many rounds
	// every benchmark gets before adaptive sampling picks the undecided
	// ones.
	Count int `yaml:"count"`
	// Warmup is how many rounds per side run first and are discarded
	// (default 1 for command suites, 0 for the go preset, whose test
	// binary already runs each benchmark once before timing it).
	Warmup *int `yaml:"warmup"`
	// MaxCount turns on adaptive sampling: after Count rounds, balanced
	// blocks of rounds run the benchmarks still undecided, until each is
	// decided or has MaxCount rounds per side (0: no cap but Budget).
	MaxCount int `yaml:"max_count"`
	// Budget turns on adaptive sampling too and bounds it: a time ("5m":
	// no block starts that would likely end after it) or rounds ("10x":
	// the benchmark runs that 10 rounds of every benchmark would take,
	// the first Count rounds included).
	Budget Budget `yaml:"budget"`
	// Timeout bounds each command (default DefaultTimeout).
	Timeout Duration `yaml:"timeout"`
	// BuildTimeout bounds the build (default DefaultBuildTimeout).
	BuildTimeout Duration `yaml:"build_timeout"`
	// Env is added to every command's environment.
	Env map[string]string `yaml:"env"`
	// BenchFiles are globs of files that a patch's version is laid over
	// the baseline too, so a benchmark the patch adds is compared.
	BenchFiles []string `yaml:"bench_files"`

	// Go holds the options of the "go" preset.
	Go GoOptions `yaml:"go"`

	// Vars give values to placeholders in build, setup, command and
	// teardown ({name}); a preset sets defaults, variants override them.
	Vars map[string]string `yaml:"vars"`
	// Setup runs through /bin/sh -e once per variant before its first
	// round, such as starting the server under test on {port} with its
	// data in {datadir}; it must return once the server is up.
	Setup string `yaml:"setup"`
	// Teardown runs once per variant after its last round, and always,
	// even after a failure or an interrupt.
	Teardown string `yaml:"teardown"`
	// PerfStat wraps each command in perf stat and adds its counters to
	// the variant's results.
	PerfStat bool `yaml:"perf_stat"`
	// PerfEvents are the events perf stat counts (default cycles,
	// instructions, context-switches, task-clock).
	PerfEvents []string `yaml:"perf_events"`
	// Variants are the sides compared when no patch or ref is given: the
	// same code under other settings, or other refs; the first is the
	// baseline.
	Variants Variants `yaml:"variants"`
	// Instrument is what measures the benchmarks: "walltime", "cpu-sim"
	// (instruction counts under Valgrind's cachegrind), "both", or "auto"
	// (cpu-sim when the host's noise, probed as the job starts, hides the
	// smallest change to detect). A Go suite defaults to auto, a command
	// suite to walltime (see DefaultInstrument and docs/configuration.md).
	Instrument string `yaml:"instrument"`
}

// DefaultInstrument is the instrument of a suite that names none, neither
// itself nor in the config's top-level instrument: auto for the go preset,
// whose benchmarks cachegrind can count, and walltime for a command suite,
// whose command may be a server, a script or a tool that Valgrind would
// slow beyond its timeouts or that measures its own time.
func DefaultInstrument(preset string) string {
	if preset == "go" {
		return InstrumentAuto
	}
	return InstrumentWallTime
}

// The instruments a suite can measure with.
const (
	InstrumentWallTime = "walltime"
	InstrumentCPUSim   = "cpu-sim"
	InstrumentBoth     = "both"
	InstrumentAuto     = "auto"
)

// AutoInstrument reports whether the suite's instrument is chosen for the
// host as the job starts.
func (s *Suite) AutoInstrument() bool {
	return s.Instrument == InstrumentAuto
}

// Instruments returns whether the suite measures wall time and whether it
// counts simulated instructions; an instrument still to be chosen (auto)
// measures wall time until the job chooses.
func (s *Suite) Instruments() (wall, sim bool) {
	switch s.Instrument {
	case InstrumentCPUSim:
		return false, true
	case InstrumentBoth:
		return true, true
	}
	return true, false
}

// ValidInstrument checks an instrument name ("" is the default).
func ValidInstrument(v string) error {
	switch v {
	case "", InstrumentWallTime, InstrumentCPUSim, InstrumentBoth, InstrumentAuto:
		return nil
	}
	return fmt.Errorf("instrument %q: want walltime, cpu-sim, both or auto", v)
}

// GoOptions narrow the "go" preset, like the same flags of `go test`.
type GoOptions struct {
	// Packages is the package pattern (default "./...").
	Packages string `yaml:"packages"`
	// Bench is the -bench regexp (default ".").
	Bench string `yaml:"bench"`
	// Benchtime is -benchtime, such as "1s" or "100x".
	Benchtime string `yaml:"benchtime"`
	// Benchmem adds -benchmem (default true).
	Benchmem *bool `yaml:"benchmem"`
	// CPUProfile runs one more round of each side with -cpuprofile after
	// the measured ones (profiling slows a benchmark, so that round is
	// not compared), for flame graphs of where the time went.
	CPUProfile bool `yaml:"cpuprofile"`
}

// Param is one matrix parameter and its values.
type Param struct {
	Name   string
	Values []string
}

// Matrix is an ordered list of parameters.
type Matrix []Param

// UnmarshalYAML reads a mapping of name to a value or list of values,
// keeping the file's order. Entries that are neither are left out; the
// config check reports them at their place.
func (m *Matrix) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return typeError("matrix: expected a mapping of parameter to values, such as {threads: [1, 2, 4]}, got %s", describe(n))
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		p := Param{Name: k.Value}
		switch v.Kind {
		case yaml.ScalarNode:
			p.Values = []string{v.Value}
		case yaml.SequenceNode:
			for _, e := range v.Content {
				if e.Kind == yaml.ScalarNode {
					p.Values = append(p.Values, e.Value)
				}
			}
		}
		if len(p.Values) > 0 {
			*m = append(*m, p)
		}
	}
	return nil
}

// Points returns every combination of the matrix, the first parameter
// varying slowest. A matrix without parameters has one empty point.
func (m Matrix) Points() [][]Param {
	points := [][]Param{nil}
	for _, p := range m {
		var next [][]Param
		for _, pt := range points {
			for _, v := range p.Values {
				np := append(append([]Param(nil), pt...), Param{Name: p.Name, Values: []string{v}})
				next = append(next, np)
			}
		}
		points = next
	}
	return points
}

// Suites is the ordered suites map.
type Suites []Suite

// UnmarshalYAML reads the suites mapping in file order, recording lines.
// A value that cannot be read leaves its field empty and the decoder goes
// on; the config check reports every such mistake at its place.
func (s *Suites) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return typeError("suites: expected a mapping of suite name to its settings, got %s", describe(n))
	}
	var msgs []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		var suite Suite
		if v.Kind == yaml.MappingNode {
			msgs = append(msgs, decodeErrors(v.Decode(&suite))...)
		}
		suite.Name, suite.Line = k.Value, k.Line
		suite.ApplyPreset()
		*s = append(*s, suite)
	}
	if len(msgs) > 0 {
		return &yaml.TypeError{Errors: msgs}
	}
	return nil
}

// decodeErrors returns the decoder's messages for a value it could not
// read.
func decodeErrors(err error) []string {
	if err == nil {
		return nil
	}
	var te *yaml.TypeError
	if errors.As(err, &te) {
		return te.Errors
	}
	return []string{err.Error()}
}

// Lookup returns the named suite.
func (s Suites) Lookup(name string) (*Suite, bool) {
	for i := range s {
		if s[i].Name == name {
			return &s[i], true
		}
	}
	return nil, false
}

var placeholder = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{([A-Za-z_][A-Za-z0-9_.-]*)\}`) })

// isBuiltinPlaceholder reports whether name is a placeholder the runner
// fills, not the matrix.
func isBuiltinPlaceholder(name string) bool {
	switch name {
	case "worktree", "variant", "round", "out", "port", "datadir":
		return true
	}
	return false
}

// check reports what cannot work in the suite at path; variants is the
// path of the variants it compares (its own or the top-level ones).
func (s *Suite) check(v *validator, path, variants string) {
	oneOf(v, path+".instrument", s.Instrument, InstrumentWallTime, InstrumentCPUSim, InstrumentBoth, InstrumentAuto)
	if s.Warmup != nil && *s.Warmup < 0 {
		v.add(path+".warmup", "expected 0 or more, got %d", *s.Warmup)
	}
	if s.MaxCount < 0 || (s.MaxCount > 0 && s.MaxCount < s.Count) {
		v.add(path+".max_count", "%d must be at least count (%d)", s.MaxCount, s.Count)
	}
	if s.Budget.Rounds > 0 && s.Budget.Rounds < s.Count {
		v.add(path+".budget", "budget %s must be at least count (%d)", s.Budget, s.Count)
	}
	if s.Count < 0 {
		v.add(path+".count", "expected at least 1, got %d", s.Count)
	}
	if s.Go.Bench != "" {
		if _, err := regexp.Compile(s.Go.Bench); err != nil {
			v.add(path+".go.bench", "expected a regular expression: %s", regexpError(err))
		}
	}
	if d := filepath.ToSlash(s.Dir); d != "" && (strings.HasPrefix(d, "/") || slices.Contains(strings.Split(d, "/"), "..")) {
		v.add(path+".dir", "expected a directory inside the repository (a relative path without \"..\"), got %q", s.Dir)
	}
	if bt := s.Go.Benchtime; bt != "" {
		if err := checkBenchtime(bt); err != nil {
			v.add(path+".go.benchtime", "%v", err)
		}
	}
	s.Variants.check(v, variants)
	switch s.Preset {
	case "go":
		if s.Command != "" {
			v.add(path+".command", "preset go runs go test itself; drop command or the preset")
		}
		return
	case "":
	default:
		if _, ok := LookupPreset(s.Preset); !ok {
			v.add(path+".preset", "unknown preset %q (known: %s)", s.Preset, strings.Join(PresetNames(), ", "))
		}
	}
	if strings.TrimSpace(s.Command) == "" {
		v.add(path, "command is required (or preset: go)")
	}
	if s.Parser != "" && s.Parser != "auto" {
		if _, err := parse.Lookup(s.Parser); err != nil {
			v.add(path+".parser", "%v", err)
		}
	}
	switch {
	case s.Output == "", s.Output == "stdout", s.Output == "stderr", s.Output == "combined", strings.HasPrefix(s.Output, "file:"):
	default:
		v.add(path+".output", "expected stdout, stderr, combined or file:PATH, got %q", s.Output)
	}
	if v.c.nodes.isBroken(path+".matrix") || v.c.nodes.isBroken(path+".vars") || v.c.nodes.isBroken(variants) {
		return // the placeholders cannot be told apart from what could not be read
	}
	names := map[string]bool{}
	for _, p := range s.Matrix {
		names[p.Name] = true
	}
	for _, f := range []struct{ key, text string }{{"command", s.Command}, {"build", s.Build}, {"setup", s.Setup}, {"teardown", s.Teardown}} {
		for _, m := range placeholder().FindAllStringSubmatch(f.text, -1) {
			if _, isVar := s.Vars[m[1]]; !names[m[1]] && !isBuiltinPlaceholder(m[1]) && !isVar && !s.Variants.definesEverywhere(m[1]) {
				v.add(path+"."+f.key, "uses {%s}, which is not a matrix parameter, a var of the suite or of every variant", m[1])
			}
		}
	}
}

// regexpError is a regexp's compile error without the package's prefix.
func regexpError(err error) string {
	return strings.TrimPrefix(err.Error(), "error parsing regexp: ")
}

// checkBenchtime accepts go test's -benchtime: a duration or a count "100x".
func checkBenchtime(s string) error {
	if n, ok := strings.CutSuffix(s, "x"); ok {
		if v, err := strconv.Atoi(n); err == nil && v > 0 {
			return nil
		}
	} else if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return nil
	}
	return fmt.Errorf("expected a duration such as 1s or a count such as 100x, got %q", s)
}

// Expand fills a command template with a matrix point and the runner's
// values.
func Expand(tmpl string, point []Param, builtin map[string]string) string {
	return placeholder().ReplaceAllStringFunc(tmpl, func(m string) string {
		name := m[1 : len(m)-1]
		for _, p := range point {
			if p.Name == name {
				return p.Values[0]
			}
		}
		if v, ok := builtin[name]; ok {
			return v
		}
		return m
	})
}
