package main

import (
	"context"
	"fmt"
	"io"

	"github.com/perfbot/perfbot/config"
)

// configCmd implements "perfbot config check [FILE]".
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
	fmt.Fprintf(stdout, "%s: ok (%d suites)\n", file, len(c.Suites))
	return nil
}
