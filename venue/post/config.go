// Package post routes an answer to the venue a --post target names
// (github:OWNER/REPO#N, jira:KEY-123, reviewboard:ID, mail:ADDRESS,...),
// building each venue's client from the venues: section of the one config
// schema (config.Venues): addresses from config.yaml or the environment,
// secrets as config resolves them.
package post

import "github.com/perfbot/perfbot/config"

// The venue settings are config's; these names are kept for callers.
type (
	// Config is the venues: section of config.yaml.
	Config = config.Venues
	// GitHub configures github: targets.
	GitHub = config.GitHub
	// JIRA configures jira: targets.
	JIRA = config.JIRA
	// ReviewBoard configures reviewboard: targets.
	ReviewBoard = config.ReviewBoard
	// Gerrit configures gerrit: targets.
	Gerrit = config.Gerrit
	// Mail configures mail: targets.
	Mail = config.Mail
	// MailFormat is what answers to one list hold besides plain text.
	MailFormat = config.MailFormat
)

// Environment variables that give venue addresses.
const (
	EnvGitHubURL      = config.EnvGitHubURL
	EnvJIRAURL        = config.EnvJIRAURL
	EnvReviewBoardURL = config.EnvReviewBoardURL
	EnvSMTP           = config.EnvSMTP
	EnvMailFrom       = config.EnvMailFrom
)

// Default names of the variables holding secrets.
const (
	DefaultGitHubToken      = config.DefaultGitHubToken
	DefaultJIRAUser         = config.DefaultJIRAUser
	DefaultJIRAToken        = config.DefaultJIRAToken
	DefaultReviewBoardToken = config.DefaultReviewBoardToken
	DefaultSMTPUser         = config.DefaultSMTPUser
	DefaultSMTPPassword     = config.DefaultSMTPPassword
)

// ConfigFromEnv is the configuration the environment alone gives (see
// config.VenuesFromEnv).
func ConfigFromEnv(getenv func(string) string) Config {
	return config.VenuesFromEnv(getenv)
}
