package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/config"
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

// postAnswer posts msg to each target with the venues of cfg, reporting
// each link on stderr. Every target is tried; the errors are joined.
func postAnswer(ctx context.Context, msg answer.Answer, targets []venue.Target, cfg *config.Config, stderr io.Writer) error {
	return post.ForConfig(cfg).PostAll(ctx, msg, targets, func(t venue.Target, link string) {
		fmt.Fprintf(stderr, "perfbot: posted to %s: %s\n", t, link)
	})
}
