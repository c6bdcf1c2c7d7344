// Command perfbot benchmarks a patch against its baseline and reports what
// it does to performance, and runs the bot that does so for the venues of
// config.yaml. "perfbot help" lists its commands (README.md's Commands
// says what each does); "perfbot COMMAND -h" lists a command's flags.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"

	"github.com/perfbot/perfbot/internal/fds"
)

// command runs one subcommand.
type command func(ctx context.Context, args []string, stdout, stderr io.Writer) error

func commands() map[string]command {
	return map[string]command{
		"compare":       compareCmd,
		"report":        reportCmd,
		"parse":         parseCmd,
		"config":        configCmd,
		"version":       versionCmd,
		"history":       historyCmd,
		"calibrate":     calibrateCmd,
		"serve":         serveCmd,
		"worker":        workerCmd,
		"digest":        digestCmd,
		"flame":         flameCmd,
		"web":           webCmd,
		"status":        statusCmd,
		"doctor":        doctorCmd,
		"track":         trackCmd,
		"bisect":        bisectCmd,
		"changes":       changesCmd,
		"job":           jobCmd,
		"false-alarm":   falseAlarmCmd,
		"post-artifact": postArtifactCmd,
	}
}

// exitError carries an exit status other than 1.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func main() {
	if err := fds.MarkInheritedCloseOnExec(); err != nil {
		fmt.Fprintf(os.Stderr, "perfbot: descriptors inherited from the caller would reach every command perfbot starts: %v\n", err)
		os.Exit(1)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(exitCode(err, os.Stderr))
}

// exitCode prints err and returns the exit status for it.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	code := 1
	var ee *exitError
	if errors.As(err, &ee) {
		code = ee.code
	}
	var ue *usageError
	if errors.As(err, &ue) {
		code = 2
	}
	if msg := err.Error(); msg != "" {
		fmt.Fprintf(stderr, "perfbot: %s\n", msg)
	}
	return code
}

// usageError is a mistake in the command line (exit status 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cmds := commands()
	if len(args) > 0 && (args[0] == "--version" || args[0] == "-version") {
		return versionCmd(ctx, args[1:], stdout, stderr)
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		var names []string
		for n := range cmds {
			names = append(names, n)
		}
		sort.Strings(names)
		fmt.Fprintf(stderr, "usage: perfbot COMMAND [flags]\ncommands: %s\n", strings.Join(names, ", "))
		if len(args) == 0 {
			return usagef("no command given")
		}
		return nil
	}
	cmd, ok := cmds[args[0]]
	if !ok {
		return usagef("unknown command %q (run perfbot help)", args[0])
	}
	return cmd(ctx, args[1:], stdout, stderr)
}

// multiFlag collects a repeatable flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// newFlagSet returns a flag set that reports errors instead of exiting.
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("perfbot "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// parseFlags parses args, turning flag errors into usage errors.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return &usageError{msg: err.Error()}
	}
	return nil
}

// parseNoArgs parses args as parseFlags does, for a command that takes
// only flags.
func parseNoArgs(fs *flag.FlagSet, args []string) error {
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	return nil
}

// setUsage makes fs's usage text synopsis followed by the flags.
func setUsage(fs *flag.FlagSet, stderr io.Writer, synopsis string) {
	fs.Usage = func() {
		fmt.Fprint(stderr, synopsis)
		fs.PrintDefaults()
	}
}
