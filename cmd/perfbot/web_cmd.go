package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"

	"github.com/perfbot/perfbot/doctor"
	"github.com/perfbot/perfbot/job"
	"github.com/perfbot/perfbot/service"
	"github.com/perfbot/perfbot/store"
	"github.com/perfbot/perfbot/web"
)

// webCmd implements "perfbot web": the history's pages and JSON API,
// served from a store without the bot (no intake, no queue, no posting).
func webCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("web", stderr)
	db := fs.String("db", "perfbot.db", "history database: a SQLite file, or a postgres:// URL")
	driver := fs.String("driver", "", "store driver: sqlite or postgres (default: from --db)")
	listen := fs.String("listen", "127.0.0.1:8080", "HTTP address to serve on")
	configFile := fs.String("config", "", "config file whose digest and service.url settings the digest pages (/digests/PERIOD/END) use")
	cacheDir := fs.String("cache-dir", service.DefaultCacheDir(), "the cache directory of the runs' clones and worktrees, whose paths the pages show as <cache>, <repository> and <worktree>")
	setUsage(fs, stderr, "usage: perfbot web [--db FILE|URL] [--listen ADDR] [--cache-dir DIR] [--config FILE]\n")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	cfg, err := doctor.LoadConfigOrDefaults(*configFile)
	if err != nil {
		return err
	}
	drv := job.StoreDriver(*driver, *db)
	st, err := store.OpenExisting(ctx, drv, *db)
	if err != nil {
		return err
	}
	defer st.Close()
	log := slog.New(slog.NewTextHandler(stderr, nil)).With("process", "web")
	ws, err := web.New(st, log)
	if err != nil {
		return err
	}
	// Host paths are scrubbed as answers scrub them.
	ws.SetScrub(service.NewScrubber(service.HostPaths(*cacheDir)...).String)
	ws.SetDigests(web.DigestPages(st, cfg))
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", *listen, err)
	}
	log.Info("serving the history", "url", "http://"+ln.Addr().String()+"/", "store", drv)
	return ws.Serve(ctx, ln)
}
