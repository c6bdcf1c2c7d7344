package doctor

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"

	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/digest"
	"github.com/perfbot/perfbot/report"
)

// LoadConfig reads and checks a config file, its templates included:
// what "perfbot config check" accepts, serve, worker and compare accept,
// and the other way round. The mistakes come as config.Errors.
func LoadConfig(file string) (*config.Config, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	c, err := config.Parse(data, file)
	if err != nil {
		return nil, err
	}
	if err := checkTemplates(c); err != nil {
		return nil, err
	}
	return c, nil
}

// LoadConfigIf is LoadConfig of file, or nil (no config) when file is "".
func LoadConfigIf(file string) (*config.Config, error) {
	if file == "" {
		return nil, nil
	}
	return LoadConfig(file)
}

// LoadConfigOrDefaults is LoadConfig of file, or the defaults of every
// setting when file is "".
func LoadConfigOrDefaults(file string) (*config.Config, error) {
	if file != "" {
		return LoadConfig(file)
	}
	c := &config.Config{}
	c.Defaults()
	return c, nil
}

// checkTemplates parses and tries the config's template folder, so that a
// broken template stops the command at its start, as config.Errors naming
// the template's file and line.
func checkTemplates(c *config.Config) error {
	dir := c.TemplateDir()
	if dir == "" {
		return nil
	}
	var errs config.Errors
	derr := digest.CheckTemplate(dir)
	if derr != nil {
		derr = report.DigestTemplateError(dir, derr)
	}
	for _, err := range []error{report.CheckTemplates(dir), derr} {
		if err == nil {
			continue
		}
		var list []error
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			list = j.Unwrap()
		} else {
			list = []error{err}
		}
		for _, e := range list {
			var te *report.TemplateError
			if errors.As(e, &te) {
				errs = append(errs, &config.Error{File: te.File, Line: te.Line, Path: "templates", Msg: te.Msg})
			} else {
				errs = append(errs, &config.Error{File: c.File, Path: "templates", Msg: e.Error()})
			}
		}
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// Config reads the config file as LoadConfig does and gives one result,
// with every mistake as a detail line, and the config when it is sound.
func Config(file string) ([]Result, *config.Config) {
	c, err := LoadConfig(file)
	if err != nil {
		r := Result{Name: "config", Status: Fail, Reason: err.Error()}
		var errs config.Errors
		if errors.As(err, &errs) {
			r.Reason = fmt.Sprintf("%s: %d %s (perfbot config check %s)", file, len(errs), Plural(len(errs), "error", "errors"), file)
			for _, e := range errs {
				r.Details = append(r.Details, e.Error())
			}
		}
		return []Result{r}, nil
	}
	return []Result{{Name: "config", Status: OK,
		Reason: fmt.Sprintf("%s: %d suites, %d schedules, store %s", file, len(c.Suites), len(c.Schedules), c.Store.Driver)}}, c
}

// All is the checklist of what cfg needs on this host, after the config's
// own results rs (Config's): each venue's credentials and the host. Without
// a config the host checks use the defaults: bubblewrap, automatic
// cgroups, the default store.
func All(ctx context.Context, rs []Result, cfg *config.Config) []Result {
	if cfg != nil {
		rs = append(rs, Venues(ctx, cfg, Options{})...)
		return append(rs, Host(ctx, cfg, Options{})...)
	}
	def := &config.Config{}
	def.Defaults()
	return append(rs, Git(ctx), Sandbox(ctx, def), Cgroups(def), Freezer(def))
}

// Failures counts the results that failed.
func Failures(rs []Result) int {
	n := 0
	for _, r := range rs {
		if r.Status == Fail {
			n++
		}
	}
	return n
}

// LogVenues runs the venue checks at the start of the service and logs
// which venues are usable, and as whom: an error for each that is not, a
// warning when none is configured. It returns an error only when a venue's
// configuration contradicts its credentials (a venues.VENUE.login that is
// not the account they sign in as).
func LogVenues(ctx context.Context, cfg *config.Config, log *slog.Logger) error {
	var errs []error
	for _, r := range Venues(ctx, cfg, Options{}) {
		if r.Misconfigured {
			errs = append(errs, fmt.Errorf("%s: %s", cfg.File, r.Reason))
		}
		switch r.Status {
		case OK:
			log.Info("venue usable", "venue", r.Name, "check", r.Reason)
		case Warn:
			log.Warn("no venue usable", "venue", r.Name, "check", r.Reason)
		default:
			log.Error("VENUE NOT USABLE: requests from it are not taken and answers to it fail; run perfbot doctor", "venue", r.Name, "check", r.Reason)
		}
	}
	return errors.Join(errs...)
}

// Plural is one or many, after n.
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
