package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/perfbot/perfbot/store"
)

// historyCmd implements "perfbot history": it prints a benchmark's stored
// history as a table.
func historyCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("history", stderr)
	db := fs.String("db", "perfbot.db", "history database: a SQLite file, or a postgres:// URL")
	driver := fs.String("driver", "", "store driver: sqlite or postgres (default: from --db)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: perfbot history [--db FILE|URL] BENCHMARK\n")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("history needs exactly one benchmark name")
	}
	st, err := store.Open(ctx, storeDriver(*driver, *db), *db)
	if err != nil {
		return err
	}
	defer st.Close()
	points, err := st.History(ctx, fs.Arg(0))
	if err != nil {
		return err
	}
	if len(points) == 0 {
		return fmt.Errorf("no history for benchmark %q in %s", fs.Arg(0), *db)
	}
	return store.WriteHistory(stdout, points)
}

// storeDriver picks the store driver: the one given, else postgres for a
// postgres URL, else sqlite.
func storeDriver(driver, dsn string) string {
	if driver != "" {
		return driver
	}
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		return store.Postgres
	}
	return store.SQLite
}
