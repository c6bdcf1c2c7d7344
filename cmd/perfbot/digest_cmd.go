package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/digest"
	"github.com/perfbot/perfbot/doctor"
	"github.com/perfbot/perfbot/job"
	"github.com/perfbot/perfbot/service"
	"github.com/perfbot/perfbot/service/setup"
	"github.com/perfbot/perfbot/store"
	"github.com/perfbot/perfbot/venue"
	"github.com/perfbot/perfbot/venue/post"
	"github.com/perfbot/perfbot/web"
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
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: perfbot digest [flags]\n")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("digest takes no arguments")
	}
	length, err := service.DigestPeriod(*period)
	if err != nil {
		return usagef("%v", err)
	}
	end := time.Now()
	if *endFlag != "" {
		if end, err = time.Parse(time.RFC3339, *endFlag); err != nil {
			return usagef("--end %q: want RFC 3339, such as 2026-11-30T08:00:00Z", *endFlag)
		}
	}
	cfg := &config.Config{}
	if *configFile != "" {
		if cfg, err = doctor.LoadConfig(*configFile); err != nil {
			return err
		}
	} else {
		cfg.Defaults()
	}
	driver, dsn := cfg.Store.Driver, cfg.StoreDSN()
	if *db != "" {
		driver, dsn = job.StoreDriver("", *db), *db
	}
	st, err := store.Open(ctx, driver, dsn)
	if err != nil {
		return err
	}
	defer st.Close()
	d, err := digest.Build(ctx, st, end.Add(-length), end, setup.DigestOptions(cfg, *period))
	if err != nil {
		return err
	}
	if *postTo == "" {
		switch *format {
		case "text":
			_, err = io.WriteString(stdout, d.Text())
		case "html":
			_, err = io.WriteString(stdout, d.HTML())
		default:
			return usagef("--format %q: want text or html", *format)
		}
		return err
	}
	target, err := venue.ParseTarget(*postTo)
	if err != nil {
		return usagef("%v", err)
	}
	if *configFile == "" {
		return errors.New("--post needs --config for the venue settings")
	}
	venues := cfg.Venues.WithEnv(os.Getenv)
	msg := d.Message()
	msg.Key = fmt.Sprintf("digest:%s@%s", *period, end.UTC().Format(time.RFC3339))
	link, err := post.NewRouter(venues, post.Options{}).Post(ctx, target, msg)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "digest sent: %s\n", link)
	return nil
}

// digestPages renders the digest pages of perfbot web (/digests/PERIOD/END)
// as the mail's HTML part is rendered, with the config's digest settings.
func digestPages(st *store.Store, cfg *config.Config) web.DigestFunc {
	return func(ctx context.Context, period string, end time.Time) (string, error) {
		length, err := service.DigestPeriod(period)
		if err != nil {
			return "", fmt.Errorf("%w: %v", web.ErrUnknownDigest, err)
		}
		d, err := digest.Build(ctx, st, end.Add(-length), end, setup.DigestOptions(cfg, period))
		if err != nil {
			return "", err
		}
		return d.HTMLWith(cfg.TemplateDir())
	}
}
