package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/doctor"
)

// configCmd implements "perfbot config check [FILE]": the file is decoded
// once into the one schema and every mistake is printed as
// FILE:LINE:COL: SETTING: what was expected, so that all of them can be
// fixed before a run or the service trips over the first.
func configCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "check" || len(args) > 2 {
		return usagef("usage: perfbot config check [FILE]")
	}
	file := "config.yaml"
	if len(args) > 1 {
		file = args[1]
	}
	c, err := doctor.LoadConfig(file)
	if err != nil {
		var errs config.Errors
		if errors.As(err, &errs) {
			for _, e := range errs {
				fmt.Fprintln(stderr, e)
			}
			return &exitError{code: 1, err: fmt.Errorf("%s: %d %s", file, len(errs), doctor.Plural(len(errs), "error", "errors"))}
		}
		return err
	}
	fmt.Fprintf(stdout, "%s: ok (%d suites, %d schedules, store %s)\n", file, len(c.Suites), len(c.Schedules), c.Store.Driver)
	for _, s := range c.Secrets() {
		fmt.Fprintf(stdout, "  secret %s: from %s\n", s.Key, s.Source())
	}
	return nil
}
