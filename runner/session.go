package runner

import (
	"context"
	"fmt"

	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/sandbox"
)

// sessionPort is {port} in a suite with setup when every variant runs in
// a sandbox of its own: each has its own loopback, so they all use the
// same port and show the same command lines.
const sessionPort = 15432

// variantPort is the port a variant's server listens on: sessionPort in
// a session of its own, else a free port of the host's loopback.
func variantPort(suite *config.Suite, opts Options) (int, error) {
	if suite.Setup != "" && sandbox.OwnLoopback(opts.Sandbox) {
		return sessionPort, nil
	}
	return freePort()
}

// startSession starts the side's session for a suite with setup: one
// sandbox where its setup, rounds and teardown run one after another, so
// that a server the setup starts lives beside the benchmark (the same
// loopback, the same unprivileged user, no route out) and ends with it.
// The worktree and the variant's data and scratch directories are
// writable in it.
func startSession(ctx context.Context, suite *config.Suite, s *side, vr *variantRun, opts Options) error {
	writable := []string{s.worktree}
	for _, d := range []string{vr.datadir, vr.scratch} {
		if !within(d, s.worktree) {
			writable = append(writable, d)
		}
	}
	sess, err := sandbox.StartSession(ctx, opts.Sandbox, sandbox.SessionSpec{Writable: writable})
	if err != nil {
		return fmt.Errorf("%s: sandbox for setup: %w", s.name, err)
	}
	vr.session = sess
	return nil
}

// within reports whether path is dir or lies under it.
func within(path, dir string) bool {
	return path == dir || len(path) > len(dir) && path[:len(dir)] == dir && path[len(dir)] == '/'
}
