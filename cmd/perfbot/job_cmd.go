package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"

	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/job"
	"github.com/perfbot/perfbot/job/jobspec"
)

// jobCmd implements "perfbot job", which the service's workers run as a
// child for each job (see package job for why a child): it runs the job
// in --spec, prints the outcome as JSON on stdout and its progress as JSON
// lines on stderr. It exits 2 when the job cannot be done as asked (a
// patch that does not apply), 1 with the outcome printed when nothing
// could be compared.
func jobCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("job", stderr)
	cfgFile := fs.String("config", "", "config file with the project's suites")
	specFile := fs.String("spec", "", "file holding the job as JSON")
	dbEnv := fs.String("db-env", "", "environment variable holding the history database whose noise thresholds the verdicts apply")
	driver := fs.String("driver", "", "store driver of the history database (default: from the database)")
	cacheDir := fs.String("cache-dir", "", "where cached clones and worktrees live (default: the user cache directory)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 || *cfgFile == "" || *specFile == "" {
		return usagef("usage: perfbot job --config FILE --spec FILE [--db-env VAR] [--driver DRIVER]")
	}
	spec, err := jobspec.ReadFile(*specFile)
	if err != nil {
		return err
	}
	cfg, err := config.Load(*cfgFile)
	if err != nil {
		return err
	}
	var noiseDB string
	if *dbEnv != "" {
		noiseDB = os.Getenv(*dbEnv)
	}
	opts := job.ServiceOptions(cfg, *cacheDir, noiseDB, *driver)
	opts.Version, opts.Progress = version, job.WriteProgress(stderr)
	outcome, err := job.Run(ctx, spec, opts)
	if err != nil {
		return jobError(err)
	}
	if err := json.NewEncoder(stdout).Encode(outcome); err != nil {
		return err
	}
	if !outcome.Compared() {
		return &exitError{code: 1, err: errors.New("nothing could be compared: " + outcome.Failures())}
	}
	return nil
}
