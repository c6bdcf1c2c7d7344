package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/parse"
)

// parseCmd implements `perfbot parse [--format NAME|auto] FILE...`: it
// reads benchmark tool output and prints the normalized results, one JSON
// object per line ({"benchmark", "group", "params", "metric", "unit",
// "better", "samples" or "summary", "source"}). "-" reads standard input.
// Warnings about skipped rows go to stderr; the first file that cannot be
// parsed stops the command with an error naming the file and line.
func parseCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("parse", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "auto", "input format: auto or one of "+strings.Join(parse.Names(), ", "))
	setUsage(fs, stderr, "usage: perfbot parse [--format NAME|auto] FILE...\n\nPrints each benchmark result as one JSON object per line; \"-\" reads stdin.\n\n")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return &usageError{msg: "parse: no input files (use - for stdin)"}
	}
	if *format != "auto" {
		if _, err := parse.Lookup(*format); err != nil {
			return &usageError{msg: "parse: " + err.Error()}
		}
	}
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	ctx = parse.WithWarnings(ctx, func(w *parse.SyntaxError) {
		fmt.Fprintf(stderr, "warning: %v\n", w)
	})
	emit := func(r *bench.Result) error {
		line, err := parse.JSONLine(r)
		if err != nil {
			return fmt.Errorf("%s: %w", r.Source, err)
		}
		out.Write(line)
		return out.WriteByte('\n')
	}
	for _, name := range fs.Args() {
		if err := parse.Path(ctx, name, *format, emit); err != nil {
			return err
		}
	}
	return out.Flush()
}
