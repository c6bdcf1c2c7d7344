package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/digest"
	"github.com/perfbot/perfbot/report"
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
	c, err := config.Parse(data, file)
	if err != nil {
		return nil, err
	}
	if err := checkTemplates(c); err != nil {
		return nil, err
	}
	return c, nil
}

// checkTemplates parses and tries the config's template folder, so that a
// broken template stops the command at its start, as config.Errors naming
// the template's file and line.
func checkTemplates(c *config.Config) error {
	dir := c.TemplateDir()
	if dir == "" {
		return nil
	}
	var errs config.Errors
	derr := digest.CheckTemplate(dir)
	if derr != nil {
		derr = report.DigestTemplateError(dir, derr)
	}
	for _, err := range []error{report.CheckTemplates(dir), derr} {
		if err == nil {
			continue
		}
		var list []error
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			list = j.Unwrap()
		} else {
			list = []error{err}
		}
		for _, e := range list {
			var te *report.TemplateError
			if errors.As(e, &te) {
				errs = append(errs, &config.Error{File: te.File, Line: te.Line, Path: "templates", Msg: te.Msg})
			} else {
				errs = append(errs, &config.Error{File: c.File, Path: "templates", Msg: e.Error()})
			}
		}
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
