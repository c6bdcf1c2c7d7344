package post

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"sort"
	"strings"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/target"
)

// ForConfig sets up the venues of cfg (none without one), completed from
// the process environment, as the command line posts.
func ForConfig(cfg *config.Config) *Router {
	var venues config.Venues
	var opt Options
	if cfg != nil {
		venues, opt.ServiceURL = cfg.Venues, cfg.Service.URL
	}
	return NewRouter(venues.WithEnv(os.Getenv), opt)
}

// PostAll posts msg to each target and calls posted with the link of each
// post. Every target is tried; the errors are joined.
func (r *Router) PostAll(ctx context.Context, msg answer.Answer, targets []target.Target, posted func(t target.Target, link string)) error {
	var errs []error
	for _, t := range targets {
		link, err := r.Post(ctx, t, msg)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		posted(t, link)
	}
	return errors.Join(errs...)
}

// AnswerKey is the stable key of perfbot's answer posted from the command
// line to targets for suites: the same targets and suites give the same
// key, so a rerun edits its earlier answer instead of posting a second
// one.
func AnswerKey(targets []target.Target, suites []string) string {
	var parts []string
	for _, t := range targets {
		parts = append(parts, t.String())
	}
	sort.Strings(parts)
	sum := sha256.Sum256([]byte(strings.Join(parts, "\n") + "\x00" + strings.Join(suites, ",")))
	return "cli-" + hex.EncodeToString(sum[:8])
}
