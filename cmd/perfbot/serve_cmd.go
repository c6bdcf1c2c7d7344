package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/bot"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/digest"
	gerritintake "github.com/perfbot/perfbot/intake/gerrit"
	ghintake "github.com/perfbot/perfbot/intake/github"
	jiraintake "github.com/perfbot/perfbot/intake/jira"
	mailintake "github.com/perfbot/perfbot/intake/mail"
	rbintake "github.com/perfbot/perfbot/intake/reviewboard"
	"github.com/perfbot/perfbot/job"
	"github.com/perfbot/perfbot/job/child"
	"github.com/perfbot/perfbot/report"
	"github.com/perfbot/perfbot/review/gerrit"
	ghreview "github.com/perfbot/perfbot/review/github"
	"github.com/perfbot/perfbot/review/jira"
	"github.com/perfbot/perfbot/review/post"
	"github.com/perfbot/perfbot/review/reviewboard"
)

// serveCmd implements "perfbot serve": the bot itself. It takes requests
// from the venues configured in config.yaml (the GitHub webhook at
// /webhook/github, polls of GitHub, JIRA, Review Board and mail), queues
// them, runs them (with SQLite, or with embedded_workers), posts the
// answers, fires the schedules and serves /healthz and /metrics.
func serveCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return runService(ctx, "serve", bot.ModeServe, args, stderr)
}

// serviceFlags are the flags shared by serve and worker.
type serviceFlags struct {
	config string
	listen string
	queue  string
	db     string
	name   string
	json   bool
}

func runService(ctx context.Context, name string, mode bot.Mode, args []string, stderr io.Writer) error {
	var f serviceFlags
	fs := newFlagSet(name, stderr)
	fs.StringVar(&f.config, "config", "config.yaml", "config file")
	fs.StringVar(&f.db, "db", "", "history and queue database: a SQLite file or a postgres:// URL (overrides store:)")
	fs.StringVar(&f.name, "name", "", "this process's name in runs and logs (default: the host name)")
	fs.BoolVar(&f.json, "log-json", false, "log JSON lines instead of text")
	if mode == bot.ModeServe {
		fs.StringVar(&f.listen, "listen", "", "HTTP address for webhooks, /healthz and /metrics (overrides service.listen)")
	} else {
		fs.StringVar(&f.queue, "queue", "", "queue to take jobs from (overrides service.queue), such as service.confirm.queue on a second host")
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	cfg, err := loadServiceConfig(f)
	if err != nil {
		return err
	}
	if mode == bot.ModeWorker && cfg.Store.Driver != "postgres" {
		return usagef("perfbot worker takes jobs from a shared PostgreSQL queue (store.driver: postgres or --db postgres://...); with SQLite, perfbot serve runs the jobs itself")
	}
	var handler slog.Handler = slog.NewTextHandler(stderr, nil)
	if f.json {
		handler = slog.NewJSONHandler(stderr, nil)
	}
	log := slog.New(handler).With("process", name)
	if mode == bot.ModeServe {
		if err := logVenueChecks(ctx, cfg, log); err != nil {
			return err
		}
	}
	venues := cfg.Venues.WithEnv(os.Getenv)
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	// The child perfbot gets none of the secrets in this environment:
	// its output is redacted here.
	sec, err := job.ReadSecrets(f.config, os.Environ())
	if err != nil {
		return err
	}
	var svc *bot.Service
	deps := bot.Deps{
		Benchmarker: newJobBenchmarker(exe, f.config, cfg, sec.Values),
		Poster:      post.NewRouter(venues, post.Options{ServiceURL: cfg.Service.URL}),
		Render:      func(cmp *compare.Comparison) answer.Answer { return renderReport(cmp, cfg.TemplateDir()) },
		Logger:      log,
		Version:     version,
		Digest: func(ctx context.Context, job bot.DigestJob) (answer.Answer, error) {
			length, err := bot.DigestPeriod(job.Period)
			if err != nil {
				return answer.Answer{}, err
			}
			d, err := digest.Build(ctx, svc.Store(), job.End.Add(-length), job.End, digestOptions(cfg, job.Period))
			if err != nil {
				return answer.Answer{}, err
			}
			return d.Message(), nil
		},
	}
	svc, err = bot.Open(ctx, cfg, mode, deps)
	if err != nil {
		return err
	}
	defer svc.Close()
	if mode == bot.ModeServe {
		if err := addIntakes(svc, cfg, venues, log); err != nil {
			return err
		}
		stopPages, err := addPages(ctx, svc, cfg, log)
		if err != nil {
			return err
		}
		defer stopPages()
	}
	return svc.Run(ctx)
}

// loadServiceConfig reads config.yaml as config check does, refusing a
// file it rejects, and applies the command-line overrides.
func loadServiceConfig(f serviceFlags) (*bot.Config, error) {
	cfg, err := loadConfig(f.config)
	if err != nil {
		return nil, err
	}
	if f.db != "" {
		cfg.Store.Driver = storeDriver("", f.db)
		cfg.Store.Path, cfg.Store.URL, cfg.Store.URLEnv = f.db, f.db, ""
		embedded := cfg.Store.Driver == "sqlite"
		cfg.Service.EmbeddedWorkers = &embedded
	}
	if f.listen != "" {
		cfg.Service.Listen = f.listen
	}
	if f.name != "" {
		cfg.Service.Name = f.name
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if f.queue != "" {
		cfg.Service.Queue = f.queue
	}
	if cfg.Store.Driver == "postgres" && cfg.StoreDSN() == "" {
		return nil, fmt.Errorf("%s: store.url_env names %s, which is empty: no PostgreSQL URL", cfg.File, cfg.Store.URLEnv)
	}
	return cfg, nil
}

func digestOptions(cfg *bot.Config, period string) digest.Options {
	return digest.Options{Branches: cfg.Digest.Branches, RC: cfg.Digest.RC, Release: cfg.Digest.Release,
		Title: period, MailArchive: cfg.Digest.MailArchive, TemplateDir: cfg.TemplateDir(), URL: cfg.Service.URL,
		OpenAfter: cfg.Digest.OpenAfter}
}

// renderReport renders a comparison with the report templates, falling
// back to the summary when they fail.
func renderReport(cmp *compare.Comparison, templateDir string) answer.Answer {
	msg, err := report.Message(cmp, report.Options{Limits: post.Limits(), TemplateDir: templateDir})
	if err != nil {
		msg = bot.RenderSummary(cmp)
		t := msg.Renderings[answer.Text]
		t.Full += "\n(the full report could not be rendered: " + err.Error() + ")\n"
		msg.Set(answer.Text, t)
	}
	return msg
}

// readSecret reads a secret of the config, naming the setting when its
// file cannot be read.
func readSecret(s config.Secret) (string, error) {
	v, err := s.Read(config.Env{})
	if err != nil {
		return "", fmt.Errorf("%s: %w", s.Key, err)
	}
	return v, nil
}

// addIntakes wires each configured venue's intake into the service.
func addIntakes(svc *bot.Service, cfg *bot.Config, venues config.Venues, log *slog.Logger) error {
	v := cfg.Venues
	every := cfg.Service.PollInterval
	policy := cfg.Triggers.Policy()
	if v.GitHub.Repo != "" || v.GitHub.Webhook() {
		// The client posting uses too: token or GitHub App, whichever
		// is configured.
		gc, err := ghreview.ConfigFrom(venues.GitHub, config.Env{})
		if err != nil {
			return fmt.Errorf("github intake: %w", err)
		}
		gc.HTTPClient = &http.Client{Timeout: 30 * time.Second}
		client, err := ghreview.NewClient(gc)
		if err != nil {
			return fmt.Errorf("github intake: %w", err)
		}
		in := &ghintake.Intake{
			Client:    ghintake.NewClient(client),
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
			in.OnPush = svc.TrackPush
			in.OnMerged = svc.RecordMerge
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
	if err := addGitLabIntake(svc, cfg, venues, log); err != nil {
		return err
	}
	if len(cfg.Track.Branches) > 0 {
		svc.AddPoller("track", every, svc.PollTracked)
	}
	if v.JIRA.Poll {
		var user, token, pat string
		var err error
		if v.JIRA.UsesPAT() {
			pat, err = readSecret(v.JIRA.PAT())
		} else {
			user = v.JIRA.User
			if user == "" {
				user, err = readSecret(v.JIRA.UserSecret())
			}
			if err == nil {
				token, err = readSecret(v.JIRA.Token())
			}
		}
		if err != nil {
			return fmt.Errorf("jira intake: %w", err)
		}
		c, err := jira.New(jira.Config{BaseURL: venues.JIRA.URL, User: user, Token: token, PAT: pat,
			Deployment: jira.Deployment(v.JIRA.Deployment)})
		if err != nil {
			return fmt.Errorf("jira intake: %w", err)
		}
		p := &jiraintake.Poller{Search: c, Queue: svc, Tested: svc.Store(), JQL: v.JIRA.JQL, Log: log.With("intake", "jira"),
			Policy: &policy, Poster: svc.Poster(), Metrics: svc.Metrics(), FalseAlarms: svc, Marks: svc.Store(),
			Fetch: func(ctx context.Context, url string) (string, error) {
				if err := onSite(url, venues.JIRA.URL); err != nil {
					return "", err
				}
				return job.FetchPatch(ctx, url, func(req *http.Request) {
					if pat != "" {
						req.Header.Set("Authorization", "Bearer "+pat)
					} else if user != "" {
						req.SetBasicAuth(user, token)
					}
				})
			}}
		svc.AddPoller("jira", every, func(ctx context.Context) error { _, err := p.Poll(ctx); return err })
	}
	if v.ReviewBoard.Poll {
		token, err := readSecret(v.ReviewBoard.Token())
		if err != nil {
			return fmt.Errorf("review board intake: %w", err)
		}
		c, err := reviewboard.New(reviewboard.Config{BaseURL: venues.ReviewBoard.URL, Token: token})
		if err != nil {
			return fmt.Errorf("review board intake: %w", err)
		}
		p := &rbintake.Poller{List: c, Diffs: c, Reviews: c, FalseAlarms: svc, Marks: svc.Store(), Queue: svc, Tested: svc.Store(),
			Repository: v.ReviewBoard.Repository, Log: log.With("intake", "reviewboard"),
			Policy: &policy, Poster: svc.Poster(), Metrics: svc.Metrics()}
		svc.AddPoller("reviewboard", every, func(ctx context.Context) error { _, err := p.Poll(ctx); return err })
	}
	if v.Gerrit.Poll {
		pass, err := readSecret(v.Gerrit.Password())
		if err != nil {
			return fmt.Errorf("gerrit intake: %w", err)
		}
		c, err := gerrit.New(gerrit.Config{BaseURL: venues.Gerrit.URL, User: v.Gerrit.User, Password: pass})
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
			Policy: policy, Poster: svc.Poster(), SeriesWait: v.Mail.SeriesWait, Metrics: svc.Metrics()}
		if len(policy.AllowSenders) == 0 {
			log.Warn("triggers.senders is empty: every mailed patch is refused with a polite reply")
		}
		svc.AddPoller("mail", every, func(ctx context.Context) error { _, err := p.Poll(ctx); return err })
	}
	return nil
}

// newJobBenchmarker runs each job as a child "perfbot job" (see package
// job for why a child), which hands back the whole outcome, samples and
// profiles included, and its progress. The child gets the store's DSN,
// whose noise thresholds (perfbot calibrate) its verdicts apply, in a
// variable of its own, off its command line; the secrets of this process
// are redacted from its output.
func newJobBenchmarker(exe, cfgFile string, cfg *bot.Config, secrets []string) *child.Command {
	argv := []string{exe, "job", "--config", cfgFile, "--spec", "{spec}"}
	var env []string
	if db := cfg.StoreDSN(); db != "" {
		argv = append(argv, "--db-env", noiseDBEnv, "--driver", cfg.Store.Driver)
		env = append(env, noiseDBEnv+"="+db)
	}
	// Exit status 2 is a request that cannot be done as asked (a patch
	// that does not apply, a suite the config lacks): an answer, not a
	// retry.
	return &child.Command{Argv: argv, Env: env, Secrets: secrets, Answered: map[int]string{2: "setup"}}
}

var _ bot.FileBenchmarker = (*child.Command)(nil)

// noiseDBEnv carries the store's DSN to the child, off its command line.
const noiseDBEnv = "PERFBOT_NOISE_DB"

// onSite refuses to send a venue's credentials anywhere but the venue.
func onSite(url, site string) error {
	if site == "" || !strings.HasPrefix(url, strings.TrimSuffix(site, "/")+"/") {
		return fmt.Errorf("patch %s is not on %s: not sending credentials there", url, site)
	}
	return nil
}
