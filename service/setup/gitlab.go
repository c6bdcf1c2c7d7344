package setup

import (
	"fmt"
	"log/slog"

	"github.com/perfbot/perfbot/config"
	glintake "github.com/perfbot/perfbot/intake/gitlab"
	"github.com/perfbot/perfbot/service"
	"github.com/perfbot/perfbot/venue/post"
)

// addGitLabIntake serves the GitLab webhook at /webhook/gitlab when
// venues.gitlab names its secret: notes with commands and, with
// merge_requests, merge requests opened or pushed to. The intake reads
// and replies through router's GitLab client, the one posting uses.
func addGitLabIntake(svc *service.Service, cfg *config.Config, router *post.Router, log *slog.Logger) error {
	g := cfg.Venues.GitLab
	if !g.Webhook() {
		return nil
	}
	client, err := router.GitLab()
	if err != nil {
		return fmt.Errorf("gitlab intake: %w", err)
	}
	ws := g.WebhookSecret()
	secret, err := readSecret(ws)
	if err != nil {
		return err
	}
	if secret == "" {
		return fmt.Errorf("%s names %s, which is empty: the webhook cannot check deliveries", ws.Key, ws.Source())
	}
	policy := cfg.Triggers.Policy()
	in := &glintake.Intake{
		Client: client, Queue: svc, Seen: svc.Store(), Control: svc, Marks: svc, Secret: []byte(secret),
		Project: g.Project, Policy: &policy, MinAccessLevel: g.AccessLevel(), MergeRequests: g.MergeRequests,
		Login: g.Login, Command: cfg.Triggers.Command, Log: log.With("intake", "gitlab"), Metrics: svc.Metrics(),
	}
	if len(cfg.Track.Branches) > 0 {
		in.OnMerged = svc.Tracker().RecordGitLabMerge
	}
	svc.Handle("POST /webhook/gitlab", in)
	return nil
}
