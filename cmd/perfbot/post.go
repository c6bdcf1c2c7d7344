package main

import (
	"context"
	"fmt"
	"io"

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

// postAnswer posts msg to each target with the venues of cfg, reporting
// each link on stderr. Every target is tried; the errors are joined.
func postAnswer(ctx context.Context, msg answer.Answer, targets []venue.Target, cfg *config.Config, stderr io.Writer) error {
	return post.ForConfig(cfg).PostAll(ctx, msg, targets, func(t venue.Target, link string) {
		fmt.Fprintf(stderr, "perfbot: posted to %s: %s\n", t, link)
	})
}
