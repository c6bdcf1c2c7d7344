package main

import (
	"context"
	"fmt"
	"io"

	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/doctor"
	"github.com/perfbot/perfbot/internal/safetext"
	"github.com/perfbot/perfbot/job"
	"github.com/perfbot/perfbot/service"
	"github.com/perfbot/perfbot/store"
)

// statusCmd implements "perfbot status": the benchmark jobs queued or
// running, and the answers not delivered yet or given up, with the reason
// of their last failure. It exits 1 when an answer was given up.
func statusCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("status", stderr)
	cfgFile := fs.String("config", "config.yaml", "config file naming the store (store:)")
	db := fs.String("db", "", "history and queue database: a SQLite file or a postgres:// URL (overrides the config)")
	all := fs.Bool("all", false, "list delivered answers too")
	setUsage(fs, stderr, "usage: perfbot status [--config FILE] [--db FILE|URL] [--all]\n")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	// Targets, keys, job titles and errors come from the outside: their
	// control characters are shown as escapes, never sent to the terminal.
	out := safetext.NewTerminal(stdout)
	defer out.Flush()
	stdout = out
	var cfg *config.Config
	if *db == "" {
		var err error
		if cfg, err = doctor.LoadConfig(*cfgFile); err != nil {
			return err
		}
	}
	driver, dsn := job.StoreOf(cfg, *db)
	st, err := store.Open(ctx, driver, dsn)
	if err != nil {
		return err
	}
	defer st.Close()
	failed, err := service.WriteStatus(ctx, stdout, st, *all)
	if err != nil {
		return err
	}
	if failed > 0 {
		return fmt.Errorf("%d %s given up (see LAST ERROR)", failed, doctor.Plural(failed, "answer", "answers"))
	}
	return nil
}
