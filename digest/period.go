package digest

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/store"
)

// OptionsFor are the digest: section's settings of cfg for the period
// named period ("daily", "weekly", "monthly").
func OptionsFor(cfg *config.Config, period string) Options {
	return Options{Branches: cfg.Digest.Branches, RC: cfg.Digest.RC, Release: cfg.Digest.Release,
		Title: period, MailArchive: cfg.Digest.MailArchive, TemplateDir: cfg.TemplateDir(), URL: cfg.Service.URL,
		OpenAfter: cfg.Digest.OpenAfter}
}

// ForPeriod builds the digest of the period named period that ends at
// end, with cfg's digest: settings. A period name other than daily,
// weekly and monthly is an *UnknownPeriodError.
func ForPeriod(ctx context.Context, st *store.Store, cfg *config.Config, period string, end time.Time) (*Digest, error) {
	length, err := config.DigestPeriod(period)
	if err != nil {
		return nil, &UnknownPeriodError{Err: err}
	}
	return Build(ctx, st, end.Add(-length), end, OptionsFor(cfg, period))
}

// UnknownPeriodError is a digest period name perfbot does not know.
type UnknownPeriodError struct{ Err error }

func (e *UnknownPeriodError) Error() string { return e.Err.Error() }
func (e *UnknownPeriodError) Unwrap() error { return e.Err }

// keyPrefix begins the answer key of every digest.
const keyPrefix = "digest:"

// Key is the answer key of the digest of period (or of the schedule so
// named) ending at end, so that a digest sent twice edits (or, by mail,
// threads) the same answer.
func Key(period string, end time.Time) string {
	return fmt.Sprintf("%s%s@%s", keyPrefix, period, end.UTC().Format(time.RFC3339))
}

// IsKey reports whether key is a digest's answer key (see Key).
func IsKey(key string) bool { return strings.HasPrefix(key, keyPrefix) }

// Render is the digest in format: "text", or "html" (the mail's HTML
// part, with the embedded template).
func (d *Digest) Render(format string) (string, error) {
	switch format {
	case "text":
		return d.Text(), nil
	case "html":
		return d.HTML(), nil
	}
	return "", fmt.Errorf("digest: format %q: want text or html", format)
}
