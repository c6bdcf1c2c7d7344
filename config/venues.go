package config

import (
	"strings"
	"time"
)

// Venues is the venues: section: one struct per venue, read alike by its
// intake (webhook or poll) and by posting answers. Secrets never appear in
// it directly: each is named by an environment variable (the *_env keys,
// with the defaults below) or a file (the *_file keys, which win); see
// Secrets.
type Venues struct {
	GitHub      GitHub      `yaml:"github"`
	JIRA        JIRA        `yaml:"jira"`
	ReviewBoard ReviewBoard `yaml:"reviewboard"`
	Gerrit      Gerrit      `yaml:"gerrit"`
	Mail        Mail        `yaml:"mail"`
	GitLab      GitLab      `yaml:"gitlab"`
}

// GitHub is venues.github.
type GitHub struct {
	// Repo ("OWNER/REPO") is the repository whose pull requests are
	// served; it lets a --post target name only the pull request
	// (github:#42).
	Repo string `yaml:"repo"`
	// URL is the API root for GitHub Enterprise Server
	// (https://ghe.example.com/api/v3/); empty means github.com.
	// Environment: PERFBOT_GITHUB_URL.
	URL string `yaml:"url"`
	// TokenEnv names the variable holding the token (default
	// GITHUB_TOKEN); TokenFile names a file holding it instead.
	TokenEnv  string `yaml:"token_env"`
	TokenFile string `yaml:"token_file"`
	// AppID, InstallationID and PrivateKeyFile (or PrivateKeyEnv) sign
	// in as a GitHub App instead of with a token.
	AppID          string `yaml:"app_id"`
	InstallationID int64  `yaml:"installation_id"`
	PrivateKeyFile string `yaml:"private_key_file"`
	PrivateKeyEnv  string `yaml:"private_key_env"`
	// WebhookSecretEnv names the variable holding the webhook secret;
	// WebhookSecretFile a file holding it instead. Either turns on the
	// webhook at /webhook/github.
	WebhookSecretEnv  string `yaml:"webhook_secret_env"`
	WebhookSecretFile string `yaml:"webhook_secret_file"`
	// Poll lists recent issue comments instead of waiting for webhooks.
	Poll bool `yaml:"poll"`
	// Login restricts edit-in-place to comments by this account.
	Login string `yaml:"login"`
	// StatusContext names the commit status or check run (default
	// "perfbot").
	StatusContext string `yaml:"status_context"`
	// Checks posts a check run with the report instead of a commit
	// status (GitHub App credentials or a workflow's GITHUB_TOKEN).
	Checks bool `yaml:"checks"`
}

// UsesApp reports whether GitHub is reached as a GitHub App.
func (g GitHub) UsesApp() bool { return g.AppID != "" || g.InstallationID != 0 }

// JIRA is venues.jira.
type JIRA struct {
	// URL is the site (https://issues.example.org,
	// https://acme.atlassian.net). Environment: PERFBOT_JIRA_URL.
	URL string `yaml:"url"`
	// Project narrows the default JQL filter of intake.
	Project string `yaml:"project"`
	// User is the account (a Cloud account's email); UserEnv names a
	// variable holding it instead (default JIRA_USER).
	User    string `yaml:"user"`
	UserEnv string `yaml:"user_env"`
	// TokenEnv (default JIRA_TOKEN) or TokenFile holds the password or
	// API token for basic auth.
	TokenEnv  string `yaml:"token_env"`
	TokenFile string `yaml:"token_file"`
	// PATEnv or PATFile holds a Server/Data Center personal access token,
	// used instead of user and token.
	PATEnv  string `yaml:"pat_env"`
	PATFile string `yaml:"pat_file"`
	// Deployment is "cloud" (search with /rest/api/3/search/jql) or
	// "server" (Server and Data Center: /rest/api/2/search); empty asks
	// the server.
	Deployment string `yaml:"deployment"`
	// JQL selects the issues to test (default: status = "Patch Available",
	// within Project when set).
	JQL string `yaml:"jql"`
	// Poll turns polling on.
	Poll bool `yaml:"poll"`
}

// UsesPAT reports whether JIRA is reached with a personal access token.
func (j JIRA) UsesPAT() bool { return j.PATEnv != "" || j.PATFile != "" }

// ReviewBoard is venues.reviewboard.
type ReviewBoard struct {
	// URL is the site (https://reviews.example.org).
	// Environment: PERFBOT_REVIEWBOARD_URL.
	URL string `yaml:"url"`
	// Repository names the repository whose review requests are polled.
	Repository string `yaml:"repository"`
	// TokenEnv (default REVIEWBOARD_TOKEN) or TokenFile holds the API
	// token.
	TokenEnv  string `yaml:"token_env"`
	TokenFile string `yaml:"token_file"`
	// Poll turns polling on.
	Poll bool `yaml:"poll"`
}

// Gerrit is venues.gerrit (see docs/gerrit.md).
type Gerrit struct {
	// URL is the site (https://review.example.org).
	// Environment: PERFBOT_GERRIT_URL.
	URL string `yaml:"url"`
	// User is perfbot's account; PasswordEnv (default
	// GERRIT_HTTP_PASSWORD) or PasswordFile holds its HTTP password
	// (Settings → HTTP Credentials).
	User         string `yaml:"user"`
	PasswordEnv  string `yaml:"password_env"`
	PasswordFile string `yaml:"password_file"`
	// Query selects the changes polled (Gerrit search syntax), such as
	// "status:open project:store branch:main"; its new patch sets are
	// run (subject to triggers), and comments on its changes are read for
	// "/perfbot run".
	Query string `yaml:"query"`
	// Label, when set, is voted with each result: +1 when nothing got
	// worse, -1 when something did.
	Label string `yaml:"label"`
	// Group names a Gerrit group (UUID, id or name) whose members may
	// start runs, besides the users triggers.tracker_users lists as
	// "gerrit:NAME".
	Group string `yaml:"group"`
	// Commands turns off ("false") reading "/perfbot run" comments;
	// default on when polling.
	Commands *bool `yaml:"commands"`
	// PatchSets turns off ("false") running every new patch set, leaving
	// comment commands; default on when polling.
	PatchSets *bool `yaml:"patch_sets"`
	// Poll turns polling on.
	Poll bool `yaml:"poll"`
}

// ReadsCommands reports whether polling reads "/perfbot run" comments.
func (g Gerrit) ReadsCommands() bool { return g.Commands == nil || *g.Commands }

// RunsPatchSets reports whether polling runs every new patch set.
func (g Gerrit) RunsPatchSets() bool { return g.PatchSets == nil || *g.PatchSets }

// Mail is venues.mail: sending answers and digests by SMTP, reading list
// patches from a maildir or IMAP.
type Mail struct {
	// SMTP is the submission server, host:port. Environment: PERFBOT_SMTP.
	SMTP string `yaml:"smtp"`
	// From is the sender ("perfbot <perfbot@example.org>").
	// Environment: PERFBOT_MAIL_FROM.
	From string `yaml:"from"`
	// User is the SMTP account; UserEnv names a variable holding it
	// instead (default SMTP_USER). PasswordEnv (default SMTP_PASSWORD) or
	// PasswordFile holds its password. No user means no AUTH.
	User         string `yaml:"user"`
	UserEnv      string `yaml:"user_env"`
	PasswordEnv  string `yaml:"password_env"`
	PasswordFile string `yaml:"password_file"`
	// ImplicitTLS speaks TLS from the start (port 465) instead of
	// STARTTLS.
	ImplicitTLS bool `yaml:"implicit_tls"`
	// StartTLS is "require" (the default, except on loopback),
	// "opportunistic" (the default on loopback) or "off".
	StartTLS string `yaml:"starttls"`
	// TLSServerName is the name the server's certificate must carry
	// (default: the host of SMTP); CAFile is a PEM file of extra trusted
	// certificates (a local relay's self-signed one).
	TLSServerName string `yaml:"tls_server_name"`
	CAFile        string `yaml:"ca_file"`
	// LocalName is the EHLO name (default "localhost").
	LocalName string `yaml:"local_name"`
	// HTML adds an HTML alternative with inline charts to answers, and
	// Attachments attaches the charts and raw results; both default to
	// false: plain text alone, as mailing lists expect. Lists overrides
	// them for answers to one list address.
	HTML        bool                  `yaml:"html"`
	Attachments bool                  `yaml:"attachments"`
	Lists       map[string]MailFormat `yaml:"lists"`
	// List is the mailing list address: answers to a mail without a
	// List-Post header go to it (the author in Cc), and it is the default
	// digest recipient.
	List string `yaml:"list"`
	// SeriesWait is how long the missing parts of a series are waited
	// for after its first mail (default 336h, 14 days); then the thread
	// gets a note and the series is dropped.
	SeriesWait time.Duration `yaml:"series_wait"`
	// Maildir is a maildir whose new mails are read for patches.
	Maildir string `yaml:"maildir"`
	// MaxMailSize is the largest mail read for patches, such as "10MiB"
	// (the default); a larger one is skipped with a log line naming it.
	MaxMailSize string `yaml:"max_mail_size"`
	// IMAP is "host:port" of an IMAP server (TLS), with user and password
	// from environment variables (or IMAPPassFile); Mailbox defaults to
	// INBOX.
	IMAP         string `yaml:"imap"`
	IMAPUserEnv  string `yaml:"imap_user_env"`
	IMAPPassEnv  string `yaml:"imap_password_env"`
	IMAPPassFile string `yaml:"imap_password_file"`
	Mailbox      string `yaml:"mailbox"`
}

// MailFormat is what answers to one list hold besides plain text.
type MailFormat struct {
	HTML        bool `yaml:"html"`
	Attachments bool `yaml:"attachments"`
}

// Environment variables that give venue addresses.
const (
	EnvGitHubURL      = "PERFBOT_GITHUB_URL"
	EnvJIRAURL        = "PERFBOT_JIRA_URL"
	EnvReviewBoardURL = "PERFBOT_REVIEWBOARD_URL"
	EnvGerritURL      = "PERFBOT_GERRIT_URL"
	EnvSMTP           = "PERFBOT_SMTP"
	EnvMailFrom       = "PERFBOT_MAIL_FROM"
	// EnvGitHubLogin gives venues.github.login (github-actions[bot] for
	// a workflow's GITHUB_TOKEN).
	EnvGitHubLogin = "PERFBOT_GITHUB_LOGIN"
	// EnvGitHubChecks set to "true" turns on venues.github.checks.
	EnvGitHubChecks = "PERFBOT_GITHUB_CHECKS"
)

// VenuesFromEnv is the configuration the environment alone gives: venue
// addresses from PERFBOT_GITHUB_URL, PERFBOT_JIRA_URL,
// PERFBOT_REVIEWBOARD_URL, PERFBOT_SMTP and PERFBOT_MAIL_FROM, secrets from
// the default variables.
func VenuesFromEnv(getenv func(string) string) Venues {
	return Venues{}.WithEnv(getenv)
}

// WithEnv fills the addresses v leaves empty (and venues.github.login)
// from the environment variables above, and turns on venues.github.checks
// when PERFBOT_GITHUB_CHECKS is "true"; what config.yaml sets wins.
func (v Venues) WithEnv(getenv func(string) string) Venues {
	fill := func(dst *string, env string) {
		if *dst == "" {
			*dst = strings.TrimSpace(getenv(env))
		}
	}
	fill(&v.GitHub.URL, EnvGitHubURL)
	fill(&v.JIRA.URL, EnvJIRAURL)
	fill(&v.ReviewBoard.URL, EnvReviewBoardURL)
	fill(&v.Gerrit.URL, EnvGerritURL)
	fill(&v.Mail.SMTP, EnvSMTP)
	fill(&v.Mail.From, EnvMailFrom)
	fill(&v.GitLab.BaseURL, EnvGitLabURL)
	fill(&v.GitHub.Login, EnvGitHubLogin)
	if strings.TrimSpace(getenv(EnvGitHubChecks)) == "true" {
		v.GitHub.Checks = true
	}
	return v
}
