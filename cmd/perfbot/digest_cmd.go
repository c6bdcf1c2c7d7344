package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/digest"
	"github.com/perfbot/perfbot/doctor"
	"github.com/perfbot/perfbot/job"
	"github.com/perfbot/perfbot/store"
	"github.com/perfbot/perfbot/target"
	"github.com/perfbot/perfbot/venue/post"
)

// digestCmd implements "perfbot digest": it prints, or mails with --post,
// the digest of a period from the history.
func digestCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("digest", stderr)
	configFile := fs.String("config", "", "config file (tracked branches, release candidate, store, venues)")
	db := fs.String("db", "", "history database: a SQLite file or a postgres:// URL (default: the config's store, else perfbot.db)")
	period := fs.String("period", "weekly", "period: daily, weekly or monthly")
	endFlag := fs.String("end", "", "end of the period, RFC 3339 (default: now)")
	format := fs.String("format", "text", "output format: text or html")
	postTo := fs.String("post", "", "send the digest to this target (mail:ADDRESS) instead of printing it")
	setUsage(fs, stderr, "usage: perfbot digest [flags]\n")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("digest takes no arguments")
	}
	if _, err := config.DigestPeriod(*period); err != nil {
		return usagef("%v", err)
	}
	end := time.Now()
	if *endFlag != "" {
		var err error
		if end, err = time.Parse(time.RFC3339, *endFlag); err != nil {
			return usagef("--end %q: want RFC 3339, such as 2026-11-30T08:00:00Z", *endFlag)
		}
	}
	if *postTo == "" && *format != "text" && *format != "html" {
		return usagef("--format %q: want text or html", *format)
	}
	cfg, err := doctor.LoadConfigOrDefaults(*configFile)
	if err != nil {
		return err
	}
	driver, dsn := job.StoreOf(cfg, *db)
	st, err := store.Open(ctx, driver, dsn)
	if err != nil {
		return err
	}
	defer st.Close()
	d, err := digest.ForPeriod(ctx, st, cfg, *period, end)
	if err != nil {
		return err
	}
	if *postTo == "" {
		text, err := d.Render(*format)
		if err != nil {
			return err
		}
		_, err = io.WriteString(stdout, text)
		return err
	}
	to, err := target.Parse(*postTo)
	if err != nil {
		return usagef("%v", err)
	}
	if *configFile == "" {
		return errors.New("--post needs --config for the venue settings")
	}
	msg := d.Message()
	msg.Key = digest.Key(*period, end)
	link, err := post.ForConfig(cfg).Post(ctx, to, msg)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "digest sent: %s\n", link)
	return nil
}
