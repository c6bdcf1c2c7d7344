package runner

import (
	"errors"
	"fmt"
	"maps"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/internal/safefile"
	"github.com/perfbot/perfbot/sandbox"
)

// VariantCandidates turns the variants of the suites (the first suite that
// declares any) into the baseline and candidates of a comparison: the first
// variant is the baseline. A variant with a ref or patch checks out other
// code; one with only settings reuses the baseline's worktree under its own
// environment, arguments and placeholder values. Every suite that declares
// variants must declare the same names in the same order.
func VariantCandidates(suites []config.Suite) (base *config.Variant, cands []Candidate, err error) {
	var names []string
	var from string
	for i := range suites {
		s := &suites[i]
		if len(s.Variants) == 0 {
			continue
		}
		if names == nil {
			names, from = s.Variants.Names(), s.Name
			base = &s.Variants[0]
			for j := 1; j < len(s.Variants); j++ {
				v := &s.Variants[j]
				cands = append(cands, Candidate{Name: v.Name, Patch: v.Patch, Ref: v.Ref, Settings: v})
			}
			continue
		}
		if strings.Join(s.Variants.Names(), "\x00") != strings.Join(names, "\x00") {
			return nil, nil, fmt.Errorf("suite %s has variants %s but suite %s has %s: give every suite the same variants, or run them apart with --suite",
				s.Name, strings.Join(s.Variants.Names(), ", "), from, strings.Join(names, ", "))
		}
	}
	if base == nil {
		return nil, nil, errors.New("runner: nothing to compare the baseline with: give a patch or a head ref, or variants in the config")
	}
	return base, cands, nil
}

// variantRun is what one suite needs of one side beyond its worktree: its
// settings, a free loopback port and a data directory for a server under
// test, and the environment and placeholder values they make.
type variantRun struct {
	settings *config.Variant
	port     int
	datadir  string
	// scratch is where the rounds write what perfbot reads back (perf
	// stat's counters); unlike datadir, which a server started by setup
	// owns, it is lent to the sandbox.
	scratch string
	env     []string
	vars    map[string]string
	// session is the variant's own sandbox, in which a suite's setup,
	// rounds and teardown run (nil without setup).
	session *sandbox.Session
}

// newVariantRun prepares side s for suite: the suite's own variant of the
// side's name wins over the settings the side was given.
func newVariantRun(suite *config.Suite, s *side, opts Options) (*variantRun, error) {
	vr := &variantRun{settings: s.settings}
	if v, ok := suite.Variants.Lookup(s.name); ok {
		vr.settings = v
	}
	port, err := variantPort(suite, opts)
	if err != nil {
		return nil, fmt.Errorf("suite %s: %s: no free port: %w", suite.Name, s.name, err)
	}
	vr.port = port
	dir, err := realTempDir("perfbot-" + sanitize(suite.Name) + "-" + sanitize(s.name) + "-")
	if err != nil {
		return nil, fmt.Errorf("suite %s: %s: data directory: %w", suite.Name, s.name, err)
	}
	// A server that refuses to run as root is started as another user,
	// who must be able to enter the directory.
	if err := os.Chmod(dir, 0o777); err != nil {
		return nil, err
	}
	vr.datadir = dir
	if vr.scratch, err = realTempDir("perfbot-scratch-"); err != nil {
		return nil, err
	}
	vr.vars = map[string]string{}
	for k, v := range suite.Vars {
		vr.vars[k] = v
	}
	if vr.settings != nil {
		for k, v := range vr.settings.Vars {
			vr.vars[k] = v
		}
	}
	// A var may use other vars and the runner's placeholders, such as
	// bin: "{datadir}/bin/tool-{version}".
	expanded := map[string]string{}
	for k, v := range vr.vars {
		expanded[k] = config.Expand(v, nil, vr.builtin(s, 0))
	}
	vr.vars = expanded
	vr.env = append(append([]string(nil), opts.Env...), envList(suite.Env)...)
	if vr.settings != nil {
		vr.env = append(vr.env, envList(vr.settings.Env)...)
	}
	vr.env = append(vr.env, "PERFBOT_VARIANT="+s.name, "PERFBOT_WORKTREE="+s.worktree,
		"PERFBOT_PORT="+strconv.Itoa(port), "PERFBOT_DATADIR="+dir)
	return vr, nil
}

// builtin returns the placeholder values of the side: the variant's vars,
// then the runner's own (worktree, variant, port, datadir and, in a round,
// round).
func (vr *variantRun) builtin(s *side, round int) map[string]string {
	m := map[string]string{}
	for k, v := range vr.vars {
		m[k] = v
	}
	m["worktree"] = s.worktree
	m["variant"] = s.name
	m["port"] = strconv.Itoa(vr.port)
	m["datadir"] = vr.datadir
	if round > 0 {
		m["round"] = strconv.Itoa(round)
	}
	return m
}

// command is the suite's command at one matrix point with the variant's
// arguments appended.
func (vr *variantRun) command(tmpl string, pt []config.Param, builtin map[string]string) string {
	cmd := config.Expand(tmpl, pt, builtin)
	if vr.settings != nil && vr.settings.Args != "" {
		cmd += " " + config.Expand(vr.settings.Args, pt, builtin)
	}
	return cmd
}

// writeFiles writes the variant's configuration files into its data
// directory. A build step has written there before, so the writes follow
// no symbolic link: a link on the way is refused, and a link (or file) at
// a file's name is replaced, never written through.
func (vr *variantRun) writeFiles(s *side) error {
	if vr.settings == nil {
		return nil
	}
	for _, name := range slices.Sorted(maps.Keys(vr.settings.Files)) {
		content := config.Expand(vr.settings.Files[name], nil, vr.builtin(s, 0))
		if err := safefile.WriteFile(vr.datadir, filepath.ToSlash(filepath.Clean(name)), []byte(content), 0o644); err != nil {
			return fmt.Errorf("files: %w", err)
		}
	}
	return nil
}

// realTempDir makes a new temporary directory and returns its real path
// (no symbolic link at any component, as the sandbox lends only such
// directories, even where the temporary directory is reached through one).
func realTempDir(pattern string) (string, error) {
	dir, err := os.MkdirTemp("", pattern)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return real, nil
}

// roundWritable lists what a round may write besides its directory: the
// scratch and data directories. With setup, the server started in the
// variant's session shares the data directory with the rounds.
func (vr *variantRun) roundWritable() []string {
	return []string{vr.scratch, vr.datadir}
}

// remove deletes the data and scratch directories.
func (vr *variantRun) remove() {
	for _, d := range []string{vr.datadir, vr.scratch} {
		if d != "" {
			_ = os.RemoveAll(d)
		}
	}
}

// freePort asks the kernel for a loopback port nobody listens on.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// resolvePatch finds a variant's patch file: as given, else relative to a
// local repository.
func resolvePatch(patch, repo string) string {
	if filepath.IsAbs(patch) {
		return patch
	}
	if _, err := os.Stat(patch); err == nil {
		return patch
	}
	if repo != "" && !strings.Contains(repo, "://") {
		if p := filepath.Join(repo, patch); fileExists(p) {
			return p
		}
	}
	return patch
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
