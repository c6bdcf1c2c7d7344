// Package post routes an answer to the venue a --post target names
// (github:OWNER/REPO#N, jira:KEY-123, reviewboard:ID, mail:ADDRESS,...),
// building each venue's client from the venues: section of the one config
// schema (config.Venues): addresses from config.yaml or the environment,
// secrets as config resolves them.
package post

import "github.com/perfbot/perfbot/config"

// ConfigFromEnv is the configuration the environment alone gives (see
// config.VenuesFromEnv).
func ConfigFromEnv(getenv func(string) string) config.Venues {
	return config.VenuesFromEnv(getenv)
}
