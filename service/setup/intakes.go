package setup

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"

	"github.com/perfbot/perfbot/config"
	gerritintake "github.com/perfbot/perfbot/intake/gerrit"
	ghintake "github.com/perfbot/perfbot/intake/github"
	jiraintake "github.com/perfbot/perfbot/intake/jira"
	mailintake "github.com/perfbot/perfbot/intake/mail"
	rbintake "github.com/perfbot/perfbot/intake/reviewboard"
	"github.com/perfbot/perfbot/service"
	"github.com/perfbot/perfbot/venue/post"
)

// addIntakes wires each configured venue's intake into the service; an
// intake reads and replies through router's client of its venue, the one
// that posts.
func addIntakes(svc *service.Service, cfg *config.Config, router *post.Router, log *slog.Logger) error {
	v := cfg.Venues
	every := cfg.Service.PollInterval
	policy := cfg.Triggers.Policy()
	if v.GitHub.Repo != "" || v.GitHub.Webhook() {
		// The client answers are posted through: token or GitHub App,
		// whichever is configured.
		client, err := router.GitHub()
		if err != nil {
			return fmt.Errorf("github intake: %w", err)
		}
		in := &ghintake.Intake{
			Client:    client,
			Queue:     svc,
			Seen:      svc.Store(),
			Control:   svc,
			Marks:     svc,
			Repo:      v.GitHub.Repo,
			Policy:    &policy,
			Command:   cfg.Triggers.Command,
			CheckName: cmp.Or(v.GitHub.StatusContext, "perfbot"),
			Log:       log.With("intake", "github"),
			Metrics:   svc.Metrics(),
		}
		if len(cfg.Track.Branches) > 0 {
			in.OnPush = svc.Tracker().TrackPush
			in.OnMerged = svc.Tracker().RecordMerge
		}
		if v.GitHub.Webhook() {
			ws := v.GitHub.WebhookSecret()
			secret, err := readSecret(ws)
			if err != nil {
				return err
			}
			if secret == "" {
				return fmt.Errorf("%s names %s, which is empty: the webhook cannot verify deliveries", ws.Key, ws.Source())
			}
			in.Secret = []byte(secret)
			svc.Handle("POST /webhook/github", in)
		}
		if v.GitHub.Poll {
			svc.AddPoller("github", every, in.Poll)
		}
	}
	if err := addGitLabIntake(svc, cfg, router, log); err != nil {
		return err
	}
	if len(cfg.Track.Branches) > 0 {
		svc.AddPoller("track", every, svc.Tracker().PollTracked)
	}
	if v.JIRA.Poll {
		c, err := router.JIRA()
		if err != nil {
			return fmt.Errorf("jira intake: %w", err)
		}
		p := &jiraintake.Poller{Search: c, Queue: svc, Tested: svc.Store(), JQL: v.JIRA.JQL, Log: log.With("intake", "jira"),
			Policy: &policy, Poster: svc.Poster(), Metrics: svc.Metrics(), FalseAlarms: svc, Marks: svc.Store(),
			Fetch: c.Attachment}
		svc.AddPoller("jira", every, func(ctx context.Context) error { _, err := p.Poll(ctx); return err })
	}
	if v.ReviewBoard.Poll {
		c, err := router.ReviewBoard()
		if err != nil {
			return fmt.Errorf("review board intake: %w", err)
		}
		p := &rbintake.Poller{List: c, Diffs: c, Reviews: c, FalseAlarms: svc, Marks: svc.Store(), Queue: svc, Tested: svc.Store(),
			Repository: v.ReviewBoard.Repository, Log: log.With("intake", "reviewboard"),
			Policy: &policy, Poster: svc.Poster(), Metrics: svc.Metrics()}
		svc.AddPoller("reviewboard", every, func(ctx context.Context) error { _, err := p.Poll(ctx); return err })
	}
	if v.Gerrit.Poll {
		c, err := router.Gerrit()
		if err != nil {
			return fmt.Errorf("gerrit intake: %w", err)
		}
		p := &gerritintake.Poller{Gerrit: c, Queue: svc, Tested: svc.Store(), Marks: svc.Store(), FalseAlarms: svc, Query: v.Gerrit.Query,
			PatchSets: v.Gerrit.RunsPatchSets(), Commands: v.Gerrit.ReadsCommands(), Group: v.Gerrit.Group,
			Policy: &policy, Poster: svc.Poster(), Metrics: svc.Metrics(), Log: log.With("intake", "gerrit")}
		svc.AddPoller("gerrit", every, func(ctx context.Context) error { _, err := p.Poll(ctx); return err })
	}
	var src mailintake.Source
	var maxMail int64
	if v.Mail.MaxMailSize != "" {
		var err error
		if maxMail, err = config.ParseSize(v.Mail.MaxMailSize); err != nil {
			return fmt.Errorf("venues.mail.max_mail_size: %w", err)
		}
	}
	mailLog := log.With("intake", "mail")
	switch {
	case v.Mail.Maildir != "":
		src = mailintake.Maildir{Dir: v.Mail.Maildir, MaxSize: maxMail, Log: mailLog}.Source()
	case v.Mail.IMAP != "" && v.Mail.IMAPUserEnv != "":
		user, err := readSecret(v.Mail.IMAPUser())
		if err != nil {
			return err
		}
		pass, err := readSecret(v.Mail.IMAPPassword())
		if err != nil {
			return err
		}
		src = mailintake.IMAP{Addr: v.Mail.IMAP, User: user, Password: pass, Mailbox: v.Mail.Mailbox,
			MaxSize: maxMail, Log: mailLog}.Source()
	}
	if src != nil {
		p := &mailintake.Poller{Source: src, Queue: svc, Tested: svc.Store(), Claims: svc.Store(), List: v.Mail.List, Log: mailLog,
			Policy: policy, Poster: svc.Poster(), SeriesWait: v.Mail.SeriesWait, Metrics: svc.Metrics(), Marks: svc}
		if len(policy.AllowSenders) == 0 {
			log.Warn("triggers.senders is empty: every mailed patch is refused with a polite reply")
		}
		svc.AddPoller("mail", every, func(ctx context.Context) error { _, err := p.Poll(ctx); return err })
	}
	return nil
}
