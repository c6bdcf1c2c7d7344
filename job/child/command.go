// Package child is the contract between the service and the child process
// that runs a job: the job's spec goes in (its placeholders in the command
// line, the whole spec in a file), the outcome comes out on standard output,
// decoded once, and progress lines come on standard error. The child gets
// none of the service's secrets; what it prints is redacted before it is
// read.
package child

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/job"
	"github.com/perfbot/perfbot/job/jobspec"
	"github.com/perfbot/perfbot/provenance"
	"github.com/perfbot/perfbot/redact"
	"github.com/perfbot/perfbot/sandbox"
)

// Command runs a job as a command that prints the comparison as
// JSON on its standard output, such as
//
//	perfbot compare --config config.yaml --base {base} --candidate {candidate} --patch {patch} --format json
//
// In Argv, {key}, {base}, {candidate} (the pinned commit when the job has
// one, else the candidate ref), {patch} (a file holding the job's
// patch, or its URL), {suites} (comma-separated) and {spec} (a file holding
// the whole job as JSON) are replaced with the job's values. The command
// runs in its own process group, killed with it when the job is cancelled
// or the worker dies.
//
// The command may print a job.Outcome instead of a bare comparison ("perfbot
// job" does): the comparison then comes with every cell's samples. Lines
// it writes on stderr with job.WriteProgress are its progress.
type Command struct {
	Argv []string
	// Dir is the working directory.
	Dir string
	// Env is added to the environment the command gets: perfbot's own,
	// reduced to Env's allow list.
	Env []string
	// Secrets are redacted from the command's output before it is
	// decoded: the command does not get the secrets held in perfbot's
	// environment, so it cannot redact them itself.
	Secrets []string
	// Runner runs the command (default: a child process group that dies
	// with the worker).
	Runner sandbox.Runner
	// Answered maps exit statuses that mean "the job was done and failed
	// for a reason to tell the requester" (such as a patch that does not
	// apply) to the failing stage; such a failure is answered, not retried.
	Answered map[int]string
}

// Run runs the command for job and decodes its output, handing the
// progress lines of the command to progress (when not nil).
func (e *Command) Run(ctx context.Context, spec jobspec.Spec, progress job.ProgressFunc) (*compare.Comparison, error) {
	o, err := e.RunOutcome(ctx, spec, progress)
	if err != nil {
		return nil, err
	}
	return o.Comparison, nil
}

// RunOutcome is Run returning the whole outcome the command printed (its
// profiles too), or an outcome holding just the comparison.
func (e *Command) RunOutcome(ctx context.Context, spec jobspec.Spec, progress job.ProgressFunc) (*job.Outcome, error) {
	if len(e.Argv) == 0 {
		return nil, fmt.Errorf("benchmark command is empty")
	}
	dir, err := os.MkdirTemp("", "perfbot-job-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	patch := spec.PatchURL
	if spec.Patch != "" {
		patch = filepath.Join(dir, "job.patch")
		if err := os.WriteFile(patch, []byte(spec.Patch), 0o600); err != nil {
			return nil, err
		}
	}
	specJSON, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	specFile := filepath.Join(dir, "job.json")
	if err := os.WriteFile(specFile, specJSON, 0o600); err != nil {
		return nil, err
	}
	// {candidate} is the commit the request was approved for when it was
	// pinned: a command resolving the ref itself would measure whatever
	// was pushed since.
	candidate := spec.CandidateRef
	if spec.CandidateCommit != "" {
		candidate = spec.CandidateCommit
	}
	r := strings.NewReplacer("{key}", spec.Key, "{base}", spec.BaseRef, "{candidate}", candidate,
		"{patch}", patch, "{suites}", strings.Join(spec.Suites, ","), "{spec}", specFile)
	argv := make([]string, len(e.Argv))
	for i, a := range e.Argv {
		argv[i] = r.Replace(a)
	}
	var runner sandbox.Runner = processRunner{line: e.progressLine(progress)}
	if e.Runner != nil {
		runner = e.Runner
	}
	// Never nil: a nil environment would make the child inherit perfbot's.
	env := append(append([]string{}, Env(os.Environ())...), e.Env...)
	res, err := runner.Run(ctx, sandbox.Spec{Argv: argv, Dir: e.Dir, Env: env, Network: sandbox.FullNetwork})
	if err != nil {
		return nil, fmt.Errorf("benchmark command %s: %w", argv[0], err)
	}
	if len(e.Secrets) > 0 {
		res.Stdout = jsonRedactor(e.Secrets).Bytes(res.Stdout)
		res.Stderr = redact.New(e.Secrets...).Bytes(res.Stderr)
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	// A command that printed a comparison answered, even when it exits
	// non-zero to say that nothing could be compared.
	o, jsonErr := job.DecodeOutcome(bytes.TrimSpace(res.Stdout))
	if jsonErr == nil {
		return o, nil
	}
	if stage, ok := e.Answered[res.ExitCode]; ok {
		return &job.Outcome{Comparison: &compare.Comparison{Failures: []provenance.Failure{{Stage: stage,
			Message: strings.TrimSpace(tail(res.Stderr, 4000)), Limit: res.Limit}}}}, nil
	}
	if res.ExitCode != 0 {
		return nil, fmt.Errorf("benchmark command %s exited with status %d: %s", argv[0], res.ExitCode, tail(res.Stderr, 2000))
	}
	return nil, fmt.Errorf("benchmark command %s: output is not a comparison in JSON: %w", argv[0], jsonErr)
}

// RunWithFiles runs the command for job and returns the flame graphs and
// profiles of its outcome beside the comparison, to be kept with the run.
func (e *Command) RunWithFiles(ctx context.Context, spec jobspec.Spec, progress job.ProgressFunc) (*compare.Comparison, []answer.Attachment, error) {
	o, err := e.RunOutcome(ctx, spec, progress)
	if err != nil {
		return nil, nil, err
	}
	flames, err := o.Flames()
	if err != nil {
		return nil, nil, fmt.Errorf("flame graphs of the run: %w", err)
	}
	return o.Comparison, append(flames, o.ProfileFiles()...), nil
}

// progressLine returns the processRunner.line that hands the command's
// progress lines, redacted, to progress; nil when there is no progress to
// follow.
func (e *Command) progressLine(progress job.ProgressFunc) func([]byte) bool {
	if progress == nil {
		return nil
	}
	red := jsonRedactor(e.Secrets)
	return func(line []byte) bool {
		if len(e.Secrets) > 0 {
			line = red.Bytes(line)
		}
		p, ok := job.ParseProgress(line)
		if ok {
			progress(p)
		}
		return ok
	}
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// childEnvNames are the variables of perfbot's environment a child perfbot
// gets besides sandbox.BaseEnv and sandbox.GoEnv: what it needs to find its
// caches, tools and proxies, and to hand builds and benchmarks their
// allow-listed toolchain variables.
var childEnvNames = []string{"HOME", "USER", "LOGNAME", "TMPDIR", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "SHELL",
	"JAVA_HOME", "MAVEN_OPTS", "CC", "CXX", "SSL_CERT_FILE", "SSL_CERT_DIR",
	"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy"}

// Env reduces perfbot's environment (KEY=VALUE, as os.Environ gives
// it) to what a child perfbot may get: the allow lists above and PERFBOT_*
// settings, never a variable whose name says it holds a credential
// (sandbox.LooksSecret) nor PERFBOT_DATABASE_URL. A secret the child needs
// is handed to it explicitly (Command.Env).
func Env(environ []string) []string {
	ok := map[string]bool{}
	for _, list := range [][]string{sandbox.BaseEnv, sandbox.GoEnv, childEnvNames} {
		for _, n := range list {
			ok[n] = true
		}
	}
	var out []string
	for _, kv := range environ {
		k, _, found := strings.Cut(kv, "=")
		if !found || sandbox.LooksSecret(k) {
			continue
		}
		if ok[k] || (strings.HasPrefix(k, "PERFBOT_") && k != "PERFBOT_DATABASE_URL") {
			out = append(out, kv)
		}
	}
	return out
}

// jsonRedactor redacts secrets and the forms they take inside a JSON
// string (a quote, a backslash, <, > or & escaped), so that redacting the
// JSON text itself leaves none behind.
func jsonRedactor(secrets []string) *redact.Redactor {
	vals := append([]string(nil), secrets...)
	for _, v := range secrets {
		b, err := json.Marshal(v)
		if err == nil && len(b) > 2 && string(b[1:len(b)-1]) != v {
			vals = append(vals, string(b[1:len(b)-1]))
		}
	}
	return redact.New(vals...)
}
