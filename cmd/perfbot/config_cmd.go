package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/perfbot/perfbot/config"
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
	c, err := loadConfig(file)
	if err != nil {
		var errs config.Errors
		if errors.As(err, &errs) {
			for _, e := range errs {
				fmt.Fprintln(stderr, e)
			}
			return &exitError{code: 1, err: fmt.Errorf("%s: %d %s", file, len(errs), plural(len(errs), "error", "errors"))}
		}
		return err
	}
	fmt.Fprintf(stdout, "%s: ok (%d suites, %d schedules, store %s)\n", file, len(c.Suites), len(c.Schedules), c.Store.Driver)
	for _, s := range c.Secrets() {
		fmt.Fprintf(stdout, "  secret %s: from %s\n", s.Key, s.Source())
	}
	return nil
}

// loadConfig reads and checks a config file: what config check accepts,
// serve, worker and compare accept, and the other way round.
func loadConfig(file string) (*config.Config, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	return config.Parse(data, file)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
