// Package doctor checks that a perfbot configuration can work on this
// host: each configured venue's credentials (one authenticated read each),
// the store, git, the sandbox, cgroups, and perf and valgrind when the
// suites need them. "perfbot doctor" prints the whole checklist; "perfbot
// serve" runs the venue checks at start and logs which venues are usable.
package doctor

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/redact"
)

// Status is the outcome of one check.
type Status int

// Statuses, from best to worst.
const (
	// OK: the thing works.
	OK Status = iota
	// Warn: it does not work, or works in a lesser way, and this config
	// does not need it.
	Warn
	// Fail: something the config needs cannot work.
	Fail
)

func (s Status) String() string {
	switch s {
	case OK:
		return "ok"
	case Warn:
		return "warn"
	}
	return "FAIL"
}

// Result is one line of the checklist.
type Result struct {
	// Name says what was checked ("github", "store", "bubblewrap").
	Name   string
	Status Status
	// Reason is one line: what works, or what does not and why.
	Reason string
	// Details are further lines, such as every mistake of a config file.
	Details []string
	// Misconfigured marks a failure that is the configuration's, not a
	// venue's being unreachable (a venues.VENUE.login that is not the
	// credentials' account): serve refuses to start on it.
	Misconfigured bool
}

// Options are the checks' ties to their surroundings; the zero value uses
// the process environment, file system and network.
type Options struct {
	// Getenv reads the variables secrets and venue addresses come from
	// (default os.Getenv).
	Getenv func(string) string
	// ReadFile reads the *_file secrets (default os.ReadFile).
	ReadFile func(string) ([]byte, error)
	// HTTPClient is used by the web venues (default: a 30s timeout).
	HTTPClient *http.Client
}

func (o Options) withDefaults() Options {
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.ReadFile == nil {
		o.ReadFile = os.ReadFile
	}
	return o
}

// Failed reports whether any result failed.
func Failed(rs []Result) bool {
	for _, r := range rs {
		if r.Status == Fail {
			return true
		}
	}
	return false
}

// Write prints the checklist, one line per result and its details
// indented below it.
func Write(w io.Writer, rs []Result) error {
	for _, r := range rs {
		if _, err := fmt.Fprintf(w, "%-4s  %-14s %s\n", r.Status, r.Name, oneLine(r.Reason)); err != nil {
			return err
		}
		for _, d := range r.Details {
			if _, err := fmt.Fprintf(w, "      %s\n", oneLine(d)); err != nil {
				return err
			}
		}
	}
	return nil
}

// oneLine joins the lines of s, so that a multi-line error stays one line
// of the checklist.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
}

// redactor holds the values of every secret cfg names, so that no reason
// can carry one, whatever a server echoed back.
func redactor(cfg *config.Config, opt Options) *redact.Redactor {
	env := config.Env{Getenv: opt.Getenv, ReadFile: opt.ReadFile}
	var values []string
	for _, s := range cfg.Secrets() {
		if v, err := s.Read(env); err == nil && v != "" {
			values = append(values, v)
		}
	}
	return redact.New(values...)
}

// scrub removes secrets from every reason and detail.
func scrub(rs []Result, red *redact.Redactor) []Result {
	for i := range rs {
		rs[i].Reason = red.String(rs[i].Reason)
		for j := range rs[i].Details {
			rs[i].Details[j] = red.String(rs[i].Details[j])
		}
	}
	return rs
}
