package main

import (
	"context"
	"fmt"
	"io"

	"github.com/perfbot/perfbot/doctor"
)

// doctorCmd implements "perfbot doctor [--config FILE]": the checklist of
// what the config needs on this host (the config itself, as config check
// reads it; each configured venue's credentials, with one authenticated
// read each; the store; git; the sandbox; cgroups; perf and valgrind). It
// exits 1 when something the config needs cannot work; warnings (things
// this config does not need) leave the status 0. No secret is printed.
func doctorCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("doctor", stderr)
	file := fs.String("config", "config.yaml", "config file")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	rs, cfg := doctor.Config(*file)
	rs = doctor.All(ctx, rs, cfg)
	if err := doctor.Write(stdout, rs); err != nil {
		return err
	}
	if n := doctor.Failures(rs); n > 0 {
		return &exitError{code: 1, err: fmt.Errorf("doctor: %d %s cannot work", n, doctor.Plural(n, "check", "checks"))}
	}
	return nil
}
