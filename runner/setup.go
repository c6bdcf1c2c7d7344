package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"syscall"
	"time"

	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/sandbox"
)

const (
	defaultSetupTimeout    = 5 * time.Minute
	defaultTeardownTimeout = 2 * time.Minute
)

// roundNetwork is what a suite's rounds may reach. A suite whose setup
// starts a server shares the host's network so that its rounds reach the
// server on loopback; every other suite's rounds get none.
func roundNetwork(suite *config.Suite) sandbox.Network {
	if suite.Setup != "" {
		return sandbox.FullNetwork
	}
	return sandbox.NoNetwork
}

// startVariants writes each side's configuration files and runs the suite's
// setup for it. Every side's server is up before the first round, so the
// rounds can alternate between them and drift of the machine weighs on
// every variant alike. It returns the sides whose setup worked, and a stop
// function that runs the teardown of every side whose setup was started,
// even when ctx is already cancelled, and then removes their data
// directories.
func startVariants(ctx context.Context, suite *config.Suite, sides []*side, runs map[string]*variantRun, opts Options, progress io.Writer, out *Outcome) ([]*side, func()) {
	var started []*side
	var ready []*side
	stop := func() {
		for i := len(started) - 1; i >= 0; i-- {
			teardown(ctx, suite, started[i], runs[started[i].name], opts, progress, out)
		}
	}
	for _, s := range sides {
		vr := runs[s.name]
		if err := vr.writeFiles(s); err != nil {
			out.Failures = append(out.Failures, compare.Failure{Variant: s.name, Stage: "setup", Message: fmt.Sprintf("suite %s: configuration files: %v", suite.Name, err)})
			continue
		}
		if suite.Setup == "" {
			ready = append(ready, s)
			continue
		}
		if ctx.Err() != nil {
			break
		}
		fmt.Fprintf(progress, "perfbot: suite %s: setup %s (port %d, data %s)\n", suite.Name, s.name, vr.port, vr.datadir)
		started = append(started, s)
		res, err := runScript(ctx, suite, s, vr, suite.Setup, durationOr(suite.Timeout, defaultSetupTimeout), opts)
		if err != nil {
			out.Failures = append(out.Failures, compare.Failure{Variant: s.name, Stage: "setup", Message: fmt.Sprintf("suite %s: setup: %v", suite.Name, err)})
			continue
		}
		if !res.OK() {
			out.Failures = append(out.Failures, compare.Failure{Variant: s.name, Stage: "setup", Message: fmt.Sprintf("suite %s: setup exited with status %d", suite.Name, res.ExitCode), LogTail: tailOf(res, 30), Limit: res.Limit})
			continue
		}
		ready = append(ready, s)
	}
	return ready, stop
}

// teardown runs the suite's teardown for one side under a context that
// outlives a cancelled run, so a server is stopped even after an interrupt.
func teardown(ctx context.Context, suite *config.Suite, s *side, vr *variantRun, opts Options, progress io.Writer, out *Outcome) {
	if suite.Teardown == "" {
		return
	}
	tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), defaultTeardownTimeout)
	defer cancel()
	fmt.Fprintf(progress, "perfbot: suite %s: teardown %s\n", suite.Name, s.name)
	res, err := runScript(tctx, suite, s, vr, suite.Teardown, defaultTeardownTimeout, opts)
	if err != nil {
		out.Failures = append(out.Failures, compare.Failure{Variant: s.name, Stage: "teardown", Message: fmt.Sprintf("suite %s: teardown: %v", suite.Name, err)})
		return
	}
	if !res.OK() {
		out.Failures = append(out.Failures, compare.Failure{Variant: s.name, Stage: "teardown", Message: fmt.Sprintf("suite %s: teardown exited with status %d", suite.Name, res.ExitCode), LogTail: tailOf(res, 30), Limit: res.Limit})
	}
}

// runScript runs a setup or teardown script through /bin/sh -e in the
// suite's directory of the side's worktree.
//
// Setup and teardown come from the config, not from the patch, and run on
// the host, outside the sandbox: a sandbox ends every process a command
// started when the command returns, and the server that setup starts must
// outlive it. They get the same allow-listed environment as the rounds.
func runScript(ctx context.Context, suite *config.Suite, s *side, vr *variantRun, script string, timeout time.Duration, opts Options) (*sandbox.Result, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-ec", config.Expand(script, nil, vr.builtin(s, 0)))
	cmd.Dir = suiteDir(suite, s)
	cmd.Env = vr.env
	// At the timeout or an interrupt, end the script with what it started
	// in the foreground (not the daemons, which left its process group).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var stdout, stderr cappedWriter
	stdout.limit, stderr.limit = scriptOutput, scriptOutput
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// A daemon that kept the script's stdout open must not hold up the
	// wait once the script itself has returned.
	cmd.WaitDelay = 2 * time.Second
	start := time.Now()
	err := cmd.Run()
	res := &sandbox.Result{Stdout: stdout.buf, Stderr: stderr.buf, Duration: time.Since(start), Dropped: stdout.dropped + stderr.dropped}
	var exit *exec.ExitError
	switch {
	case err == nil, errors.Is(err, exec.ErrWaitDelay):
	case ctx.Err() == context.DeadlineExceeded:
		res.ExitCode, res.Limit = -1, sandbox.LimitTimeout
	case errors.As(err, &exit):
		res.ExitCode = exit.ExitCode()
	default:
		return nil, err
	}
	return res, nil
}

// scriptOutput is how much of a setup or teardown script's output is kept.
const scriptOutput = 64 << 10

// cappedWriter keeps the first limit bytes written to it.
type cappedWriter struct {
	buf     []byte
	limit   int
	dropped int64
}

func (w *cappedWriter) Write(p []byte) (int, error) {
	room := min(w.limit-len(w.buf), len(p))
	if room > 0 {
		w.buf = append(w.buf, p[:room]...)
	}
	w.dropped += int64(len(p) - max(room, 0))
	return len(p), nil
}

func suiteDir(suite *config.Suite, s *side) string {
	if suite.Dir == "" {
		return s.worktree
	}
	return s.worktree + "/" + suite.Dir
}
