package main

import (
	"context"
	"io"

	"github.com/perfbot/perfbot/doctor"
	"github.com/perfbot/perfbot/service"
	"github.com/perfbot/perfbot/service/setup"
)

// serveCmd implements "perfbot serve": the bot itself. It takes requests
// from the venues configured in config.yaml (the GitHub webhook at
// /webhook/github, polls of GitHub, JIRA, Review Board and mail), queues
// them, runs them (with SQLite, or with embedded_workers), posts the
// answers, fires the schedules and serves /healthz and /metrics.
func serveCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return runService(ctx, "serve", service.ModeServe, args, stderr)
}

// runService parses the flags of serve or worker, reads the config and
// runs the service package setup builds from it.
func runService(ctx context.Context, name string, mode service.Mode, args []string, stderr io.Writer) error {
	var o setup.Overrides
	fs := newFlagSet(name, stderr)
	file := fs.String("config", "config.yaml", "config file")
	fs.StringVar(&o.DB, "db", "", "history and queue database: a SQLite file or a postgres:// URL (overrides store:)")
	fs.StringVar(&o.Name, "name", "", "this process's name in runs and logs (default: the host name)")
	logJSON := fs.Bool("log-json", false, "log JSON lines instead of text")
	if mode == service.ModeServe {
		fs.StringVar(&o.Listen, "listen", "", "HTTP address for webhooks, /healthz and /metrics (overrides service.listen)")
	} else {
		fs.StringVar(&o.Queue, "queue", "", "queue to take jobs from (overrides service.queue), such as service.confirm.queue on a second host")
	}
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	cfg, err := setup.LoadConfig(*file, o)
	if err != nil {
		return err
	}
	if mode == service.ModeWorker && cfg.Store.Driver != "postgres" {
		return usagef("perfbot worker takes jobs from a shared PostgreSQL queue (store.driver: postgres or --db postgres://...); with SQLite, perfbot serve runs the jobs itself")
	}
	log := setup.Logger(stderr, *logJSON, name)
	if mode == service.ModeServe {
		if err := doctor.LogVenues(ctx, cfg, log); err != nil {
			return err
		}
	}
	svc, err := setup.Open(ctx, cfg, setup.Options{ConfigFile: *file, Mode: mode, Log: log, Version: version})
	if err != nil {
		return err
	}
	defer svc.Close()
	if mode == service.ModeServe {
		stopPages, err := setup.AddPages(ctx, svc, cfg, log)
		if err != nil {
			return err
		}
		defer stopPages()
	}
	return svc.Run(ctx)
}
