package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/perfbot/perfbot/bot"
	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/review/post"
)

// configCmd implements "perfbot config check [FILE]": every section is
// decoded by the package that reads it, so a mistake anywhere is reported
// with its line before a run or the service trips over it.
func configCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "check" {
		return usagef("usage: perfbot config check [FILE]")
	}
	file := "config.yaml"
	if len(args) > 1 {
		file = args[1]
	}
	c, err := config.Load(file)
	if err != nil {
		return err
	}
	if !c.Venues.IsZero() {
		var pc post.Config
		if err := c.Venues.Decode(&pc); err != nil {
			return fmt.Errorf("%s: venues: %w", file, err)
		}
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	svc, err := bot.Decode(data, file)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: ok (%d suites, %d schedules, store %s)\n", file, len(c.Suites), len(svc.Schedules), svc.Store.Driver)
	return nil
}
