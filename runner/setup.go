package runner

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/provenance"
	"github.com/perfbot/perfbot/sandbox"
)

const (
	defaultSetupTimeout    = 5 * time.Minute
	defaultTeardownTimeout = 2 * time.Minute
)

// roundNetwork is what a suite's rounds may reach: none, or for a suite
// whose setup starts a server, the loopback of the variant's session where
// that server listens. Neither reaches the host.
func roundNetwork(suite *config.Suite) sandbox.Network {
	if suite.Setup != "" {
		return sandbox.Loopback
	}
	return sandbox.NoNetwork
}

// startVariants writes each side's configuration files and, for a suite
// with setup, starts the side's session (see startSession) and runs the
// setup in it. Every side's server is up before the first round, so the
// rounds can alternate between them and drift of the machine weighs on
// every variant alike. It returns the sides whose setup worked, and a stop
// function that runs the teardown of every side whose setup was started,
// even when ctx is already cancelled, and then ends its session.
func startVariants(ctx context.Context, suite *config.Suite, sides []*side, runs map[string]*variantRun, opts Options, progress io.Writer, out *Outcome) ([]*side, func()) {
	var started []*side
	var ready []*side
	stop := func() {
		// In reverse: variants that share the baseline's worktree give
		// it back in the order they borrowed it.
		for i := len(started) - 1; i >= 0; i-- {
			vr := runs[started[i].name]
			teardown(ctx, suite, started[i], vr, opts, progress, out)
			if err := vr.session.Close(); err != nil {
				out.Warnings = append(out.Warnings, fmt.Sprintf("suite %s: %s: ending its sandbox: %v", suite.Name, started[i].name, err))
			}
			vr.session = nil
		}
	}
	for _, s := range sides {
		vr := runs[s.name]
		if err := vr.writeFiles(s); err != nil {
			out.Failures = append(out.Failures, provenance.Failure{Variant: s.name, Stage: "setup", Message: fmt.Sprintf("suite %s: configuration files: %v", suite.Name, err)})
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
		if err := startSession(ctx, suite, s, vr, opts); err != nil {
			out.Failures = append(out.Failures, provenance.Failure{Variant: s.name, Stage: "setup", Message: fmt.Sprintf("suite %s: %v", suite.Name, err)})
			continue
		}
		started = append(started, s)
		res, err := runScript(ctx, suite, s, vr, suite.Setup, durationOr(suite.Timeout, defaultSetupTimeout), true, opts)
		if err != nil {
			out.Failures = append(out.Failures, provenance.Failure{Variant: s.name, Stage: "setup", Message: fmt.Sprintf("suite %s: setup: %v", suite.Name, err)})
			continue
		}
		if !res.OK() {
			out.Failures = append(out.Failures, provenance.Failure{Variant: s.name, Stage: "setup", Message: fmt.Sprintf("suite %s: setup exited with status %d", suite.Name, res.ExitCode), LogTail: tailOf(res, 30), Limit: res.Limit})
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
	res, err := runScript(tctx, suite, s, vr, suite.Teardown, defaultTeardownTimeout, false, opts)
	if err != nil {
		out.Failures = append(out.Failures, provenance.Failure{Variant: s.name, Stage: "teardown", Message: fmt.Sprintf("suite %s: teardown: %v", suite.Name, err)})
		return
	}
	if !res.OK() {
		out.Failures = append(out.Failures, provenance.Failure{Variant: s.name, Stage: "teardown", Message: fmt.Sprintf("suite %s: teardown exited with status %d", suite.Name, res.ExitCode), LogTail: tailOf(res, 30), Limit: res.Limit})
	}
}

// runScript runs a setup or teardown script through /bin/sh -e in the
// suite's directory of the side's worktree, inside the side's session,
// with the same allow-listed environment as the rounds. A setup is a
// service: what it starts in the background (the server) keeps running in
// the session after the script returns.
func runScript(ctx context.Context, suite *config.Suite, s *side, vr *variantRun, script string, timeout time.Duration, setup bool, opts Options) (*sandbox.Result, error) {
	return opts.Sandbox.Run(ctx, sandbox.Spec{
		Argv: []string{"/bin/sh", "-ec", config.Expand(script, nil, vr.builtin(s, 0))},
		Dir:  suiteDir(suite, s), Env: vr.env, Timeout: timeout, MaxOutput: scriptOutput,
		Network: sandbox.Loopback, Writable: vr.roundWritable(), Session: vr.session, Service: setup,
	})
}

// scriptOutput is how much of a setup or teardown script's output is kept.
const scriptOutput = 64 << 10

func suiteDir(suite *config.Suite, s *side) string {
	if suite.Dir == "" {
		return s.worktree
	}
	return s.worktree + "/" + suite.Dir
}
