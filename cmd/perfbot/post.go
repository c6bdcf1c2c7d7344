package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/report"
	"github.com/perfbot/perfbot/service"
	"github.com/perfbot/perfbot/venue"
	"github.com/perfbot/perfbot/venue/post"
)

// postTargets parses --post values.
func postTargets(values []string) ([]venue.Target, error) {
	var ts []venue.Target
	for _, v := range values {
		t, err := venue.ParseTarget(v)
		if err != nil {
			return nil, usagef("--post: %v", err)
		}
		ts = append(ts, t)
	}
	return ts, nil
}

// answerKey is the stable key of perfbot's answer in a place: the same
// targets and suites give the same key, so a rerun edits its earlier answer
// instead of posting a second one.
func answerKey(targets []venue.Target, suites []string) string {
	var parts []string
	for _, t := range targets {
		parts = append(parts, t.String())
	}
	sort.Strings(parts)
	sum := sha256.Sum256([]byte(strings.Join(parts, "\n") + "\x00" + strings.Join(suites, ",")))
	return "cli-" + hex.EncodeToString(sum[:8])
}

// postAll renders cmp once for every venue and posts it to each target,
// with extra attachments (flame graphs) after the report's own, reporting
// each link on stderr. Every target is tried; the errors are joined. Host
// paths (those of service.HostPaths under cacheDir, default the user cache
// directory's perfbot folder) are scrubbed from the answer. A runURL
// (the stored run's page) is linked from every rendering.
func postAll(ctx context.Context, cmp *compare.Comparison, extra []answer.Attachment, targets []venue.Target, key string, cfg *config.Config, cacheDir, runURL string, stderr io.Writer) error {
	if len(targets) == 0 {
		return nil
	}
	msg, err := renderAnswer(cmp, extra, key, cfg, cacheDir, runURL)
	if err != nil {
		return err
	}
	return postMessage(ctx, msg, targets, cfg, stderr)
}

// renderAnswer is the answer postAll posts: cmp rendered for every venue
// under key, host paths scrubbed, extra attachments added and runURL
// linked.
func renderAnswer(cmp *compare.Comparison, extra []answer.Attachment, key string, cfg *config.Config, cacheDir, runURL string) (answer.Answer, error) {
	if cacheDir == "" {
		cacheDir = service.DefaultCacheDir()
	}
	scrub := service.NewScrubber(service.HostPaths(cacheDir)...)
	msg, err := report.Message(scrub.Comparison(cmp), report.Options{Key: key, Limits: post.Limits(), TemplateDir: cfg.TemplateDir()})
	if err != nil {
		return answer.Answer{}, fmt.Errorf("render the answer: %w", err)
	}
	msg = scrub.Message(msg)
	msg.Attachments = append(msg.Attachments, extra...)
	return report.LinkRun(msg, runURL, 0), nil
}

// postMessage posts msg to each target, reporting each link on stderr.
// Every target is tried; the errors are joined.
func postMessage(ctx context.Context, msg answer.Answer, targets []venue.Target, cfg *config.Config, stderr io.Writer) error {
	router := newRouter(cfg)
	var errs []error
	for _, t := range targets {
		link, err := router.Post(ctx, t, msg)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		fmt.Fprintf(stderr, "perfbot: posted to %s: %s\n", t, link)
	}
	return errors.Join(errs...)
}

// newRouter is the venues of cfg (none without one), completed from the
// environment.
func newRouter(cfg *config.Config) *post.Router {
	var venues config.Venues
	var opt post.Options
	if cfg != nil {
		venues, opt.ServiceURL = cfg.Venues, cfg.Service.URL
	}
	return post.NewRouter(venues.WithEnv(os.Getenv), opt)
}
