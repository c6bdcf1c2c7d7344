// Package post routes an answer to the venue a --post target names
// (github:OWNER/REPO#N, jira:KEY-123, reviewboard:ID, mail:ADDRESS,...),
// building each venue's client from the venues: section of the one config
// schema (config.Venues): addresses from config.yaml or the environment,
// secrets as config resolves them.
package post

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/target"
	"github.com/perfbot/perfbot/venue"
	"github.com/perfbot/perfbot/venue/gerrit"
	"github.com/perfbot/perfbot/venue/github"
	"github.com/perfbot/perfbot/venue/gitlab"
	"github.com/perfbot/perfbot/venue/jira"
	"github.com/perfbot/perfbot/venue/mail"
	"github.com/perfbot/perfbot/venue/retry"
	"github.com/perfbot/perfbot/venue/reviewboard"
)

// Options are the Router's ties to its surroundings; the zero value uses
// the process environment and file system.
type Options struct {
	// Getenv reads secrets' variables (default os.Getenv).
	Getenv func(string) string
	// ReadFile reads the *_file secrets (default os.ReadFile).
	ReadFile func(string) ([]byte, error)
	// HTTPClient is used by the web venues (default: one with a 60s
	// timeout per request).
	HTTPClient *http.Client
	// Retry bounds every venue's retries (default retry.Default).
	Retry retry.Policy
	// ServiceURL is service.url: GitLab's commit status links the run's
	// page under it.
	ServiceURL string
}

// Router posts to whichever venue a target names. Venues are set up when
// the Router is made; one that is not configured fails only when a target
// names it, with an error naming the missing setting.
type Router struct {
	posters map[string]venue.Poster
	errs    map[string]error
	github  config.GitHub
	gitlab  config.GitLab
}

// NewRouter sets up every venue cfg configures.
func NewRouter(cfg config.Venues, opt Options) *Router {
	if opt.Getenv == nil {
		opt.Getenv = os.Getenv
	}
	if opt.ReadFile == nil {
		opt.ReadFile = os.ReadFile
	}
	s := config.Env{Getenv: opt.Getenv, ReadFile: opt.ReadFile}
	r := &Router{posters: map[string]venue.Poster{}, errs: map[string]error{}, github: cfg.GitHub, gitlab: cfg.GitLab}
	add := func(venue string, p venue.Poster, err error) {
		if err != nil {
			r.errs[venue] = err
			return
		}
		r.posters[venue] = p
	}
	add(orNil(newGitHub(cfg.GitHub, s, opt)))
	add(orNil(newJIRA(cfg.JIRA, s, opt)))
	add(orNil(newReviewBoard(cfg.ReviewBoard, s, opt)))
	add(orNil(newGerrit(cfg.Gerrit, s, opt)))
	add(orNil(newMail(cfg.Mail, s, opt)))
	add(orNil(newGitLab(cfg.GitLab, s, opt)))
	return r
}

// orNil names the venue along with the poster or error a constructor gave.
func orNil[P venue.Poster](venue string, p P, err error) (string, venue.Poster, error) {
	if err != nil {
		return venue, nil, err
	}
	return venue, p, nil
}

// Post sends msg to t's venue and returns a link to the post. A bare
// GitHub #N or GitLab !N takes its repository from venues.github.repo or
// venues.gitlab.project.
func (r *Router) Post(ctx context.Context, t target.Target, msg answer.Answer) (string, error) {
	p, ok := r.posters[t.Venue]
	if !ok {
		if err, ok := r.errs[t.Venue]; ok {
			return "", fmt.Errorf("post %s: %w", t, err)
		}
		return "", fmt.Errorf("post %s: unknown venue %q (want github, gitlab, jira, reviewboard, gerrit or mail)", t, t.Venue)
	}
	to := t
	var err error
	switch t.Venue {
	case target.GitHub:
		to, err = t.WithRepo(r.github.Repo)
	case target.GitLab:
		to, err = t.WithRepo(r.gitlab.Project)
	}
	if err != nil {
		return "", fmt.Errorf("post %s: %w", t, err)
	}
	link, err := p.Post(ctx, to, msg)
	if err != nil {
		return link, fmt.Errorf("post %s: %w", t, err)
	}
	return link, nil
}

// Configured reports whether venue is set up, and if not, why.
func (r *Router) Configured(venue string) error {
	if _, ok := r.posters[venue]; ok {
		return nil
	}
	if err, ok := r.errs[venue]; ok {
		return err
	}
	return fmt.Errorf("unknown venue %q", venue)
}

func newGitHub(c config.GitHub, s config.Env, opt Options) (string, *github.Client, error) {
	gc, err := github.ConfigFrom(c, s)
	if err != nil {
		return "github", nil, err
	}
	gc.HTTPClient, gc.Retry = opt.HTTPClient, opt.Retry
	p, err := github.New(gc)
	return "github", p, err
}

func newGitLab(c config.GitLab, s config.Env, opt Options) (string, *gitlab.Client, error) {
	gc, err := gitlab.ConfigFrom(c, s)
	if err != nil {
		return "gitlab", nil, err
	}
	gc.HTTPClient, gc.Retry, gc.ServiceURL = opt.HTTPClient, opt.Retry, opt.ServiceURL
	p, err := gitlab.New(gc)
	return "gitlab", p, err
}

func newJIRA(c config.JIRA, s config.Env, opt Options) (string, *jira.Client, error) {
	if c.URL == "" {
		return "jira", nil, fmt.Errorf("JIRA is not configured: no site address (set %s or venues.jira.url)", config.EnvJIRAURL)
	}
	jc := jira.Config{BaseURL: c.URL, Deployment: jira.Deployment(strings.ToLower(c.Deployment)), HTTPClient: opt.HTTPClient, Retry: opt.Retry}
	if c.UsesPAT() {
		pat, err := c.PAT().Read(s)
		where := c.PAT().Source()
		if err != nil {
			return "jira", nil, fmt.Errorf("JIRA: %w", err)
		}
		if pat == "" {
			return "jira", nil, fmt.Errorf("JIRA is not configured: no personal access token in %s", where)
		}
		jc.PAT = pat
	} else {
		user := c.User
		userWhere := "venues.jira.user"
		if user == "" {
			var err error
			if user, err = c.UserSecret().Read(s); err != nil {
				return "jira", nil, err
			}
			userWhere = c.UserSecret().Source()
		}
		tok, err := c.Token().Read(s)
		where := c.Token().Source()
		if err != nil {
			return "jira", nil, fmt.Errorf("JIRA: %w", err)
		}
		switch {
		case user == "":
			return "jira", nil, fmt.Errorf("JIRA is not configured: no user in %s (or set venues.jira.pat_env for a personal access token)", userWhere)
		case tok == "":
			return "jira", nil, fmt.Errorf("JIRA is not configured: no API token or password in %s", where)
		}
		jc.User, jc.Token = user, tok
	}
	cl, err := jira.New(jc)
	return "jira", cl, err
}

func newReviewBoard(c config.ReviewBoard, s config.Env, opt Options) (string, *reviewboard.Client, error) {
	if c.URL == "" {
		return "reviewboard", nil, fmt.Errorf("review board is not configured: no site address (set %s or venues.reviewboard.url)", config.EnvReviewBoardURL)
	}
	tok, err := c.Token().Read(s)
	where := c.Token().Source()
	if err != nil {
		return "reviewboard", nil, fmt.Errorf("review board: %w", err)
	}
	if tok == "" {
		return "reviewboard", nil, fmt.Errorf("review board is not configured: no API token in %s", where)
	}
	cl, err := reviewboard.New(reviewboard.Config{BaseURL: c.URL, Token: tok, HTTPClient: opt.HTTPClient, Retry: opt.Retry})
	return "reviewboard", cl, err
}

func newGerrit(c config.Gerrit, s config.Env, opt Options) (string, *gerrit.Client, error) {
	if c.URL == "" {
		return "gerrit", nil, fmt.Errorf("gerrit is not configured: no site address (set %s or venues.gerrit.url)", config.EnvGerritURL)
	}
	if c.User == "" {
		return "gerrit", nil, fmt.Errorf("gerrit is not configured: no account (venues.gerrit.user)")
	}
	pass, err := c.Password().Read(s)
	if err != nil {
		return "gerrit", nil, fmt.Errorf("gerrit: %w", err)
	}
	if pass == "" {
		return "gerrit", nil, fmt.Errorf("gerrit is not configured: no HTTP password in %s", c.Password().Source())
	}
	cl, err := gerrit.New(gerrit.Config{BaseURL: c.URL, User: c.User, Password: pass, Label: c.Label, HTTPClient: opt.HTTPClient, Retry: opt.Retry})
	return "gerrit", cl, err
}

func newMail(c config.Mail, s config.Env, opt Options) (string, *mail.Sender, error) {
	switch {
	case c.SMTP == "":
		return "mail", nil, fmt.Errorf("mail is not configured: no SMTP server (set %s=host:port or venues.mail.smtp)", config.EnvSMTP)
	case c.From == "":
		return "mail", nil, fmt.Errorf("mail is not configured: no sender (set %s or venues.mail.from)", config.EnvMailFrom)
	}
	user := c.User
	if user == "" {
		var err error
		if user, err = c.UserSecret().Read(s); err != nil {
			return "mail", nil, err
		}
	}
	pass, err := c.Password().Read(s)
	where := c.Password().Source()
	if err != nil {
		return "mail", nil, fmt.Errorf("mail: %w", err)
	}
	if user != "" && pass == "" {
		return "mail", nil, fmt.Errorf("mail is not configured: SMTP user %q has no password in %s", user, where)
	}
	if user == "" {
		pass = ""
	}
	sc := mail.SMTPConfig{Addr: c.SMTP, From: c.From, User: user, Password: pass, ImplicitTLS: c.ImplicitTLS, LocalName: c.LocalName, Retry: opt.Retry,
		StartTLS: mail.StartTLSMode(c.StartTLS), TLSServerName: c.TLSServerName, CAFile: c.CAFile,
		Format: mail.Format{HTML: c.HTML, Attach: c.Attachments}}
	for list, f := range c.Lists {
		if sc.Lists == nil {
			sc.Lists = map[string]mail.Format{}
		}
		sc.Lists[list] = mail.Format{HTML: f.HTML, Attach: f.Attachments}
	}
	sn, err := mail.NewSender(sc)
	return "mail", sn, err
}

// Limits is the room each format has in the venues perfbot posts to: the
// smallest comment limit among the venues that read the format, as each
// venue package defines it. report.Options.Limits takes it, so the short
// renderings fit before a venue has to cut them.
func Limits() map[answer.Format]int {
	return map[answer.Format]int{
		github.Format: github.CommentLimit,
		jira.Format:   jira.CommentLimit,
	}
}
