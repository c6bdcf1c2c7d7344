package setup

import (
	"fmt"
	"io"
	"log/slog"

	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/doctor"
	"github.com/perfbot/perfbot/job"
)

// Overrides are the settings serve's and worker's command lines give in
// place of the config's.
type Overrides struct {
	// DB is the history and queue database (a SQLite file or a
	// postgres:// URL) in place of store:; SQLite runs the jobs in the
	// serving process.
	DB string
	// Listen is service.listen, Name service.name, Queue service.queue.
	Listen, Name, Queue string
}

// LoadConfig reads config.yaml as config check does, refusing a file it
// rejects, and applies the command line's overrides.
func LoadConfig(file string, o Overrides) (*config.Config, error) {
	cfg, err := doctor.LoadConfig(file)
	if err != nil {
		return nil, err
	}
	if o.DB != "" {
		cfg.Store.Driver = job.StoreDriver("", o.DB)
		cfg.Store.Path, cfg.Store.URL, cfg.Store.URLEnv = o.DB, o.DB, ""
		embedded := cfg.Store.Driver == "sqlite"
		cfg.Service.EmbeddedWorkers = &embedded
	}
	if o.Listen != "" {
		cfg.Service.Listen = o.Listen
	}
	if o.Name != "" {
		cfg.Service.Name = o.Name
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if o.Queue != "" {
		cfg.Service.Queue = o.Queue
	}
	if cfg.Store.Driver == "postgres" && cfg.StoreDSN() == "" {
		return nil, fmt.Errorf("%s: store.url_env names %s, which is empty: no PostgreSQL URL", cfg.File, cfg.Store.URLEnv)
	}
	return cfg, nil
}

// Logger is the log of a service process named process on w: text lines,
// or JSON lines when json is set.
func Logger(w io.Writer, json bool, process string) *slog.Logger {
	var handler slog.Handler = slog.NewTextHandler(w, nil)
	if json {
		handler = slog.NewJSONHandler(w, nil)
	}
	return slog.New(handler).With("process", process)
}
