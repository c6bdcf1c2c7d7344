package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/doctor"
)

// doctorCmd implements "perfbot doctor [--config FILE]": the checklist of
// what the config needs on this host (the config itself, as config check
// reads it; each configured venue's credentials, with one authenticated
// read each; the store; git; the sandbox; cgroups; perf and valgrind). It
// exits 1 when something the config needs cannot work; warnings (things
// this config does not need) leave the status 0. No secret is printed.
func doctorCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("doctor", stderr)
	file := fs.String("config", "config.yaml", "config file")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	rs, cfg := doctorConfig(*file)
	if cfg != nil {
		rs = append(rs, doctor.Venues(ctx, cfg, doctor.Options{})...)
		rs = append(rs, doctor.Host(ctx, cfg, doctor.Options{})...)
	} else {
		// Without a config the host checks use the defaults: bubblewrap,
		// automatic cgroups, the default store.
		def := &config.Config{}
		def.Defaults()
		rs = append(rs, doctor.Git(ctx), doctor.Sandbox(ctx, def), doctor.Cgroups(def), doctor.Freezer(def))
	}
	if err := doctor.Write(stdout, rs); err != nil {
		return err
	}
	if doctor.Failed(rs) {
		n := 0
		for _, r := range rs {
			if r.Status == doctor.Fail {
				n++
			}
		}
		return &exitError{code: 1, err: fmt.Errorf("doctor: %d %s cannot work", n, plural(n, "check", "checks"))}
	}
	return nil
}

// doctorConfig reads the config as config check does: one result, with
// every mistake as a detail line, and the config when it is sound.
func doctorConfig(file string) ([]doctor.Result, *config.Config) {
	c, err := loadConfig(file)
	if err != nil {
		r := doctor.Result{Name: "config", Status: doctor.Fail, Reason: err.Error()}
		var errs config.Errors
		if errors.As(err, &errs) {
			r.Reason = fmt.Sprintf("%s: %d %s (perfbot config check %s)", file, len(errs), plural(len(errs), "error", "errors"), file)
			for _, e := range errs {
				r.Details = append(r.Details, e.Error())
			}
		}
		return []doctor.Result{r}, nil
	}
	return []doctor.Result{{Name: "config", Status: doctor.OK,
		Reason: fmt.Sprintf("%s: %d suites, %d schedules, store %s", file, len(c.Suites), len(c.Schedules), c.Store.Driver)}}, c
}

// logVenueChecks runs the venue checks at the start of serve and logs
// which venues are usable, and as whom: an error for each that is not, a
// warning when none is configured. The service starts either way, except
// when a venue's configuration contradicts its credentials (a
// venues.VENUE.login that is not the account they sign in as), which is
// returned.
func logVenueChecks(ctx context.Context, cfg *config.Config, log *slog.Logger) error {
	var errs []error
	for _, r := range doctor.Venues(ctx, cfg, doctor.Options{}) {
		if r.Misconfigured {
			errs = append(errs, fmt.Errorf("%s: %s", cfg.File, r.Reason))
		}
		switch r.Status {
		case doctor.OK:
			log.Info("venue usable", "venue", r.Name, "check", r.Reason)
		case doctor.Warn:
			log.Warn("no venue usable", "venue", r.Name, "check", r.Reason)
		default:
			log.Error("VENUE NOT USABLE: requests from it are not taken and answers to it fail; run perfbot doctor", "venue", r.Name, "check", r.Reason)
		}
	}
	return errors.Join(errs...)
}
