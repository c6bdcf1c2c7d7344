package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/perfbot/perfbot/ciresult"
	"github.com/perfbot/perfbot/doctor"
	"github.com/perfbot/perfbot/target"
	"github.com/perfbot/perfbot/venue/post"
)

// postArtifactCmd posts the answer a fork pull request's run left as an
// artifact, from a workflow_run workflow that holds a write token (see
// package ciresult for the checks).
func postArtifactCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("post-artifact", stderr)
	dir := fs.String("dir", "", "the downloaded artifact: meta.json and answer.json, as the action's compare step wrote them")
	eventPath := fs.String("event", os.Getenv("GITHUB_EVENT_PATH"), "the workflow_run event's payload (default $GITHUB_EVENT_PATH)")
	configPath := fs.String("config", "", "config file whose venues.github settings apply (default: the environment's)")
	setUsage(fs, stderr, "usage: perfbot post-artifact --dir DIR [--event FILE] [--config FILE]\n")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	if *dir == "" || *eventPath == "" {
		return usagef("give --dir and --event (or GITHUB_EVENT_PATH)")
	}
	art, err := ciresult.Load(*dir, *eventPath)
	if err != nil {
		return err
	}
	cfg, err := doctor.LoadConfigIf(*configPath)
	if err != nil {
		return err
	}
	// One router for the head check and the post: with a GitHub App, one
	// installation token.
	venues := post.ForConfig(cfg)
	if !art.Listed {
		gh, err := venues.GitHub()
		if err != nil {
			return fmt.Errorf("post-artifact: %w", err)
		}
		if err := art.CheckHead(ctx, gh); err != nil {
			return fmt.Errorf("post-artifact: %w", err)
		}
	}
	if err := postAnswer(ctx, art.Answer, []target.Target{art.PR}, venues, stderr); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "posted %s on %s\n", art.Answer.Key, art.PR.Where())
	return nil
}
