package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/perfbot/perfbot/internal/safetext"
	"github.com/perfbot/perfbot/job"
	"github.com/perfbot/perfbot/store"
)

// historyCmd implements "perfbot history": it prints a benchmark's stored
// history as a table. A name no benchmark has exactly is searched for as
// words in names, groups and parameters ("wal threads=10"), and each
// matching series is printed.
func historyCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("history", stderr)
	db := fs.String("db", "perfbot.db", "history database: a SQLite file, or a postgres:// URL")
	driver := fs.String("driver", "", "store driver: sqlite or postgres (default: from --db)")
	setUsage(fs, stderr, "usage: perfbot history [--db FILE|URL] BENCHMARK|WORDS\n")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("history needs exactly one benchmark name or search (quote several words)")
	}
	// Names, refs and parameters come from the outside: their control
	// characters are shown as escapes, never sent to the terminal.
	out := safetext.NewTerminal(stdout)
	defer out.Flush()
	stdout = out
	st, err := store.Open(ctx, job.StoreDriver(*driver, *db), *db)
	if err != nil {
		return err
	}
	defer st.Close()
	more, err := st.WriteHistoryOf(ctx, stdout, fs.Arg(0), historyMatches)
	if errors.Is(err, store.ErrNoHistory) {
		return fmt.Errorf("no history for benchmark %q in %s (no name or parameter contains it either)", fs.Arg(0), *db)
	}
	if more {
		fmt.Fprintf(stderr, "perfbot: more than %d series match %q; showing the first %d\n", historyMatches, fs.Arg(0), historyMatches)
	}
	return err
}

// historyMatches bounds the series a substring search prints.
const historyMatches = 50
