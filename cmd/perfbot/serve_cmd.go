package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/doctor"
	"github.com/perfbot/perfbot/job"
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

// serviceFlags are the flags shared by serve and worker.
type serviceFlags struct {
	config string
	listen string
	queue  string
	db     string
	name   string
	json   bool
}

// runService parses the flags of serve or worker, reads the config and
// runs the service package setup builds from it.
func runService(ctx context.Context, name string, mode service.Mode, args []string, stderr io.Writer) error {
	var f serviceFlags
	fs := newFlagSet(name, stderr)
	fs.StringVar(&f.config, "config", "config.yaml", "config file")
	fs.StringVar(&f.db, "db", "", "history and queue database: a SQLite file or a postgres:// URL (overrides store:)")
	fs.StringVar(&f.name, "name", "", "this process's name in runs and logs (default: the host name)")
	fs.BoolVar(&f.json, "log-json", false, "log JSON lines instead of text")
	if mode == service.ModeServe {
		fs.StringVar(&f.listen, "listen", "", "HTTP address for webhooks, /healthz and /metrics (overrides service.listen)")
	} else {
		fs.StringVar(&f.queue, "queue", "", "queue to take jobs from (overrides service.queue), such as service.confirm.queue on a second host")
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	cfg, err := loadServiceConfig(f)
	if err != nil {
		return err
	}
	if mode == service.ModeWorker && cfg.Store.Driver != "postgres" {
		return usagef("perfbot worker takes jobs from a shared PostgreSQL queue (store.driver: postgres or --db postgres://...); with SQLite, perfbot serve runs the jobs itself")
	}
	var handler slog.Handler = slog.NewTextHandler(stderr, nil)
	if f.json {
		handler = slog.NewJSONHandler(stderr, nil)
	}
	log := slog.New(handler).With("process", name)
	if mode == service.ModeServe {
		if err := doctor.LogVenues(ctx, cfg, log); err != nil {
			return err
		}
	}
	svc, err := setup.Open(ctx, cfg, setup.Options{ConfigFile: f.config, Mode: mode, Log: log, Version: version})
	if err != nil {
		return err
	}
	defer svc.Close()
	if mode == service.ModeServe {
		stopPages, err := addPages(ctx, svc, cfg, log)
		if err != nil {
			return err
		}
		defer stopPages()
	}
	return svc.Run(ctx)
}

// loadServiceConfig reads config.yaml as config check does, refusing a
// file it rejects, and applies the command-line overrides.
func loadServiceConfig(f serviceFlags) (*config.Config, error) {
	cfg, err := doctor.LoadConfig(f.config)
	if err != nil {
		return nil, err
	}
	if f.db != "" {
		cfg.Store.Driver = job.StoreDriver("", f.db)
		cfg.Store.Path, cfg.Store.URL, cfg.Store.URLEnv = f.db, f.db, ""
		embedded := cfg.Store.Driver == "sqlite"
		cfg.Service.EmbeddedWorkers = &embedded
	}
	if f.listen != "" {
		cfg.Service.Listen = f.listen
	}
	if f.name != "" {
		cfg.Service.Name = f.name
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if f.queue != "" {
		cfg.Service.Queue = f.queue
	}
	if cfg.Store.Driver == "postgres" && cfg.StoreDSN() == "" {
		return nil, fmt.Errorf("%s: store.url_env names %s, which is empty: no PostgreSQL URL", cfg.File, cfg.Store.URLEnv)
	}
	return cfg, nil
}
