// Package post routes an answer to the venue a --post target names
// (github:OWNER/REPO#N, jira:KEY-123, reviewboard:ID, mail:ADDRESS,...),
// building each venue's client from Config: addresses from config.yaml or
// the environment, secrets from environment variables or files.
package post

import (
	"fmt"
	"os"
	"strings"
)

// Config is the venues: section of config.yaml. Secrets never appear in it
// directly: each is named by an environment variable (the *_env fields,
// with the defaults below) or a file (the *_file fields, which win).
type Config struct {
	GitHub      GitHub      `yaml:"github"`
	JIRA        JIRA        `yaml:"jira"`
	ReviewBoard ReviewBoard `yaml:"reviewboard"`
	Mail        Mail        `yaml:"mail"`
}

// GitHub configures github: targets.
type GitHub struct {
	// URL is the API root for GitHub Enterprise Server
	// (https://ghe.example.com/api/v3/); empty means github.com.
	// Environment: PERFBOT_GITHUB_URL.
	URL string `yaml:"url"`
	// Repo ("OWNER/REPO") lets a target name only the pull request:
	// github:#42.
	Repo string `yaml:"repo"`
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
	// Login restricts edit-in-place to comments by this account.
	Login string `yaml:"login"`
	// StatusContext names the commit status or check run (default
	// "perfbot").
	StatusContext string `yaml:"status_context"`
	// Checks posts a check run with the report instead of a commit
	// status (GitHub App credentials or a workflow's GITHUB_TOKEN).
	Checks bool `yaml:"checks"`
	// WebhookSecretEnv is read by the webhook intake, not by posting.
	WebhookSecretEnv string `yaml:"webhook_secret_env"`
}

// JIRA configures jira: targets.
type JIRA struct {
	// URL is the site (https://issues.example.org,
	// https://acme.atlassian.net). Environment: PERFBOT_JIRA_URL.
	URL string `yaml:"url"`
	// Project is read by intake (the JQL filter), not by posting.
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
	// Deployment is "cloud" or "server" (Server and Data Center); empty
	// asks the server.
	Deployment string `yaml:"deployment"`
}

// ReviewBoard configures reviewboard: targets.
type ReviewBoard struct {
	// URL is the site (https://reviews.example.org).
	// Environment: PERFBOT_REVIEWBOARD_URL.
	URL string `yaml:"url"`
	// Repository is read by intake (which review requests to poll).
	Repository string `yaml:"repository"`
	// TokenEnv (default REVIEWBOARD_TOKEN) or TokenFile holds the API
	// token.
	TokenEnv  string `yaml:"token_env"`
	TokenFile string `yaml:"token_file"`
}

// Mail configures mail: targets.
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
	// List and IMAP are read by digests and intake, not by posting.
	List string `yaml:"list"`
	IMAP string `yaml:"imap"`
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
	EnvSMTP           = "PERFBOT_SMTP"
	EnvMailFrom       = "PERFBOT_MAIL_FROM"
)

// Default names of the variables holding secrets.
const (
	DefaultGitHubToken      = "GITHUB_TOKEN"
	DefaultJIRAUser         = "JIRA_USER"
	DefaultJIRAToken        = "JIRA_TOKEN"
	DefaultReviewBoardToken = "REVIEWBOARD_TOKEN"
	DefaultSMTPUser         = "SMTP_USER"
	DefaultSMTPPassword     = "SMTP_PASSWORD"
)

// ConfigFromEnv is the configuration the environment alone gives: venue
// addresses from PERFBOT_GITHUB_URL, PERFBOT_JIRA_URL,
// PERFBOT_REVIEWBOARD_URL, PERFBOT_SMTP and PERFBOT_MAIL_FROM, secrets from
// the default variables.
func ConfigFromEnv(getenv func(string) string) Config {
	return Config{}.WithEnv(getenv)
}

// WithEnv fills the addresses c leaves empty from the environment
// variables above; what config.yaml sets wins.
func (c Config) WithEnv(getenv func(string) string) Config {
	fill := func(dst *string, env string) {
		if *dst == "" {
			*dst = strings.TrimSpace(getenv(env))
		}
	}
	fill(&c.GitHub.URL, EnvGitHubURL)
	fill(&c.JIRA.URL, EnvJIRAURL)
	fill(&c.ReviewBoard.URL, EnvReviewBoardURL)
	fill(&c.Mail.SMTP, EnvSMTP)
	fill(&c.Mail.From, EnvMailFrom)
	return c
}

// secrets reads secret values from the environment or files.
type secrets struct {
	getenv   func(string) string
	readFile func(string) ([]byte, error)
}

// value returns the secret in file (when named) or in the variable env
// (def when env is empty), and a description of where it looked, for an
// error naming the missing setting.
func (s secrets) value(env, file, def string) (string, string, error) {
	if file != "" {
		data, err := s.readFile(file)
		if err != nil {
			return "", "file " + file, fmt.Errorf("reading secret file: %w", stripPathErr(err, file))
		}
		return strings.TrimRight(string(data), "\r\n"), "file " + file, nil
	}
	if env == "" {
		env = def
	}
	return s.getenv(env), "$" + env, nil
}

// stripPathErr keeps a file error's cause without repeating the path.
func stripPathErr(err error, file string) error {
	if pe, ok := err.(*os.PathError); ok {
		return fmt.Errorf("%s: %w", file, pe.Err)
	}
	return err
}
