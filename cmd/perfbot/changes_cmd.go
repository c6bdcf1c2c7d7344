package main

import (
	"context"
	"io"

	"github.com/perfbot/perfbot/job"
	"github.com/perfbot/perfbot/store"
	"github.com/perfbot/perfbot/track"
)

// changesCmd implements "perfbot changes": the stored change points of
// tracked branches, newest first.
func changesCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("changes", stderr)
	db := fs.String("db", "perfbot.db", "history database: a SQLite file, or a postgres:// URL")
	driver := fs.String("driver", "", "store driver: sqlite or postgres (default: from --db)")
	format := fs.String("format", "text", "output format: text or json")
	trackName := fs.String("track", "", "only this tracked branch (REPO@BRANCH, as perfbot track names it)")
	bench := fs.String("benchmark", "", "only this benchmark")
	limit := fs.Int("limit", 0, "print at most this many (0: all)")
	setUsage(fs, stderr, "usage: perfbot changes [--db FILE|URL] [--format text|json] [--track REPO@BRANCH] [--benchmark NAME]\n")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	l := track.Listing{Format: *format, Filter: store.ChangePointFilter{Track: *trackName, Benchmark: *bench, Limit: *limit}}
	if err := l.Check(); err != nil {
		return usagef("%v", err)
	}
	st, err := store.Open(ctx, job.StoreDriver(*driver, *db), *db)
	if err != nil {
		return err
	}
	defer st.Close()
	return l.Write(ctx, stdout, st)
}
