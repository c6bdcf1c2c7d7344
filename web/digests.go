package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/digest"
	"github.com/perfbot/perfbot/store"
)

// digestCSP is sent with a digest's page: the page is the digest mail's
// HTML part, self-contained with inline styles and inline SVG charts, so
// those are allowed; scripts and every outside resource are not.
const digestCSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'none'; frame-ancestors 'none'; base-uri 'none'"

// ErrUnknownDigest is what a DigestFunc returns for a period it does not
// know; the page answers 404.
var ErrUnknownDigest = errors.New("no such digest")

// DigestFunc renders the digest of a named period ("daily", "weekly",
// "monthly") that ends at end as a self-contained HTML page: the same
// page the digest mail's HTML part is.
type DigestFunc func(ctx context.Context, period string, end time.Time) (string, error)

// SetDigests serves /digests/PERIOD/END (END in RFC 3339, the address a
// digest mail links) and /digests/PERIOD (the period ending now) with
// render. Call it before serving; without it those pages are not found.
func (s *Server) SetDigests(render DigestFunc) { s.digests = render }

func (s *Server) digestPage(w http.ResponseWriter, r *http.Request) error {
	if s.digests == nil {
		return notFound("no digests are configured")
	}
	period := r.PathValue("period")
	end := time.Now()
	if v := r.PathValue("end"); v != "" {
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			return badRequest("digest end %q: want RFC 3339, such as 2026-11-30T08:00:00Z", v)
		}
		end = t
	}
	page, err := s.digests(r.Context(), period, end)
	if errors.Is(err, ErrUnknownDigest) {
		return notFound("no %s digest: the periods are daily, weekly and monthly", period)
	}
	if err != nil {
		return err
	}
	w.Header().Set("Content-Security-Policy", digestCSP)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, err = w.Write([]byte(page))
	return err
}

// DigestPages renders the digest pages from st with cfg's digest:
// settings, as the digest mail's HTML part is rendered (with the config's
// templates); a period digest does not know is not found.
func DigestPages(st *store.Store, cfg *config.Config) DigestFunc {
	return func(ctx context.Context, period string, end time.Time) (string, error) {
		d, err := digest.ForPeriod(ctx, st, cfg, period, end)
		var unknown *digest.UnknownPeriodError
		if errors.As(err, &unknown) {
			return "", fmt.Errorf("%w: %v", ErrUnknownDigest, err)
		}
		if err != nil {
			return "", err
		}
		return d.HTMLWith(cfg.TemplateDir())
	}
}
