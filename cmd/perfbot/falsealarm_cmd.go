package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/perfbot/perfbot/falsealarm"
	"github.com/perfbot/perfbot/internal/safetext"
	"github.com/perfbot/perfbot/job"
	"github.com/perfbot/perfbot/store"
	"github.com/perfbot/perfbot/target"
)

// falseAlarmCmd implements "perfbot false-alarm": it marks verdicts of a
// stored run as false alarms (raising those benchmarks' thresholds on the
// host that ran it), or lists the marks.
func falseAlarmCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("false-alarm", stderr)
	db := fs.String("db", "perfbot.db", "history database: a SQLite file, or a postgres:// URL")
	driver := fs.String("driver", "", "store driver: sqlite or postgres (default: from --db)")
	runID := fs.Int64("run", 0, "the run whose verdicts are marked (or listed)")
	to := fs.String("target", "", "mark the latest finished run answered to this target (github:acme/store#12) instead of --run")
	by := fs.String("by", "", "who marks the verdicts (required to mark)")
	reason := fs.String("reason", "", "why the verdicts are false alarms")
	list := fs.Bool("list", false, "list the marks (of --run, or the latest 100) instead of marking")
	setUsage(fs, stderr, "usage: perfbot false-alarm [--db FILE|URL] (--run ID|--target VENUE:WHERE) --by NAME [--reason TEXT] BENCH...\n"+
		"       perfbot false-alarm [--db FILE|URL] --list [--run ID]\n")
	// Flags may follow the benchmark names.
	var benches []string
	for {
		if err := parseFlags(fs, args); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		benches = append(benches, fs.Arg(0))
		args = fs.Args()[1:]
	}
	out := safetext.NewTerminal(stdout)
	defer out.Flush()
	st, err := store.Open(ctx, job.StoreDriver(*driver, *db), *db)
	if err != nil {
		return err
	}
	defer st.Close()
	if *list {
		if len(benches) > 0 || *by != "" || *reason != "" || *to != "" {
			return usagef("--list takes only --db, --driver and --run")
		}
		return falsealarm.List(ctx, out, st, *runID)
	}
	if len(benches) == 0 {
		return usagef("false-alarm needs the benchmarks to mark, as the answer names them")
	}
	if strings.TrimSpace(*by) == "" {
		return usagef("false-alarm needs --by: who marks the verdicts")
	}
	if (*runID != 0) == (*to != "") {
		return usagef("false-alarm needs one of --run ID and --target VENUE:WHERE")
	}
	var t target.Target
	if *to != "" {
		if t, err = target.Parse(*to); err != nil {
			return usagef("--target: %v", err)
		}
	}
	run, err := falsealarm.RunOf(ctx, st, *runID, t.Venue, t.Where())
	if errors.Is(err, store.ErrNotFound) && *runID == 0 {
		return fmt.Errorf("no finished run was answered to %s in %s", *to, *db)
	}
	if err != nil {
		return err
	}
	marks, err := falsealarm.Mark(ctx, st, falsealarm.Request{Run: run, Benches: benches, By: *by, Venue: "cli", Reason: *reason})
	if err != nil {
		return err
	}
	return falsealarm.WriteAck(out, marks, run.ID)
}
