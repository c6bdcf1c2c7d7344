package doctor

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/venue"
	"github.com/perfbot/perfbot/venue/mail"
	"github.com/perfbot/perfbot/venue/post"
)

// venueTimeout bounds the check of one venue.
const venueTimeout = 30 * time.Second

// Venues checks every venue cfg configures (a venue's section, or its
// address from the environment): its credentials are read as serve reads
// them, and each is used for one authenticated read. The checks run at
// once; the results come in a fixed order. With no venue configured the
// one result says so, as a warning.
func Venues(ctx context.Context, cfg *config.Config, opt Options) []Result {
	opt = opt.withDefaults()
	v := cfg.Venues.WithEnv(opt.Getenv)
	hc := opt.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: venueTimeout}
	}
	router := post.NewRouter(v, post.Options{Getenv: opt.Getenv, ReadFile: opt.ReadFile, HTTPClient: hc})
	var checks []func(ctx context.Context) Result
	viaRouter := func(name, venueName string) {
		checks = append(checks, func(ctx context.Context) Result {
			who, err := router.Check(ctx, venueName)
			if err != nil {
				var mismatch *venue.LoginMismatchError
				return Result{Name: name, Status: Fail, Reason: err.Error(), Misconfigured: errors.As(err, &mismatch)}
			}
			return Result{Name: name, Status: OK, Reason: who}
		})
	}
	if v.GitHub != (config.GitHub{}) {
		viaRouter("github", "github")
		if v.GitHub.Webhook() {
			checks = append(checks, func(context.Context) Result {
				return secretSet("github webhook", v.GitHub.WebhookSecret(), opt,
					"deliveries to /webhook/github are verified with the secret in %s")
			})
		}
	}
	if v.GitLab.Configured() {
		viaRouter("gitlab", "gitlab")
		if v.GitLab.Webhook() {
			checks = append(checks, func(context.Context) Result {
				return secretSet("gitlab webhook", v.GitLab.WebhookSecret(), opt,
					"deliveries to /webhook/gitlab are checked against the secret token in %s")
			})
		}
	}
	if v.JIRA.URL != "" || v.JIRA.Poll {
		viaRouter("jira", "jira")
	}
	if v.ReviewBoard.URL != "" || v.ReviewBoard.Poll {
		viaRouter("reviewboard", "reviewboard")
	}
	if v.Gerrit.URL != "" || v.Gerrit.Poll {
		viaRouter("gerrit", "gerrit")
	}
	if v.Mail.SMTP != "" || v.Mail.From != "" {
		viaRouter("mail smtp", "mail")
	}
	if v.Mail.IMAP != "" {
		checks = append(checks, func(ctx context.Context) Result { return checkIMAP(ctx, v.Mail, opt) })
	}
	if v.Mail.Maildir != "" {
		checks = append(checks, func(context.Context) Result { return checkMaildir(v.Mail.Maildir) })
	}
	if len(checks) == 0 {
		return []Result{{Name: "venues", Status: Warn,
			Reason: "no venue is configured (venues: in config.yaml): serve takes no requests and posts no answers; see docs/setup.md"}}
	}
	out := make([]Result, len(checks))
	var wg sync.WaitGroup
	for i, check := range checks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(ctx, venueTimeout)
			defer cancel()
			out[i] = check(ctx)
		}()
	}
	wg.Wait()
	return scrub(out, redactor(cfg, opt))
}

// secretSet checks that a secret that is only compared, never sent, is
// set.
func secretSet(name string, s config.Secret, opt Options, ok string) Result {
	v, err := s.Read(config.Env{Getenv: opt.Getenv, ReadFile: opt.ReadFile})
	switch {
	case err != nil:
		return Result{Name: name, Status: Fail, Reason: fmt.Sprintf("%s: %v", s.Key, err)}
	case v == "":
		return Result{Name: name, Status: Fail, Reason: fmt.Sprintf("%s names %s, which is empty", s.Key, s.Source())}
	}
	return Result{Name: name, Status: OK, Reason: fmt.Sprintf(ok, s.Source())}
}

// checkIMAP signs in to the IMAP server the mail intake reads.
func checkIMAP(ctx context.Context, m config.Mail, opt Options) Result {
	const name = "mail imap"
	if m.IMAPUserEnv == "" {
		return Result{Name: name, Status: Fail, Reason: "venues.mail.imap is set but imap_user_env is not: serve does not read the mailbox"}
	}
	env := config.Env{Getenv: opt.Getenv, ReadFile: opt.ReadFile}
	user, err := m.IMAPUser().Read(env)
	if err != nil || user == "" {
		return Result{Name: name, Status: Fail, Reason: fmt.Sprintf("no IMAP user in %s", m.IMAPUser().Source())}
	}
	pass, err := m.IMAPPassword().Read(env)
	switch {
	case err != nil:
		return Result{Name: name, Status: Fail, Reason: fmt.Sprintf("%s: %v", m.IMAPPassword().Key, err)}
	case pass == "":
		return Result{Name: name, Status: Fail, Reason: fmt.Sprintf("no IMAP password in %s", m.IMAPPassword().Source())}
	}
	who, err := mail.CheckIMAP(ctx, m.IMAP, user, pass, nil)
	if err != nil {
		return Result{Name: name, Status: Fail, Reason: err.Error()}
	}
	return Result{Name: name, Status: OK, Reason: who}
}

// checkMaildir checks that the maildir the mail intake reads exists.
func checkMaildir(dir string) Result {
	const name = "mail maildir"
	for _, sub := range []string{"new", "cur"} {
		fi, err := os.Stat(filepath.Join(dir, sub))
		if err != nil || !fi.IsDir() {
			return Result{Name: name, Status: Fail, Reason: fmt.Sprintf("%s is not a maildir (no %s/ directory)", dir, sub)}
		}
	}
	return Result{Name: name, Status: OK, Reason: dir + " is a maildir"}
}
