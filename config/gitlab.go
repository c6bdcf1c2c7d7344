package config

import "github.com/perfbot/perfbot/target"

// GitLab is venues.gitlab: merge requests on gitlab.com or a self-hosted
// GitLab, answered with a note edited in place and a commit status, and
// taken in from the project's webhook.
type GitLab struct {
	// BaseURL is the GitLab instance (https://gitlab.example.org); empty
	// means https://gitlab.com. Environment: PERFBOT_GITLAB_URL.
	BaseURL string `yaml:"base_url"`
	// Project ("GROUP/PROJECT", subgroups allowed) is the project whose
	// merge requests are served; it lets a --post target name only the
	// merge request (gitlab:!42), and the webhook ignores other projects.
	Project string `yaml:"project"`
	// TokenEnv names the variable holding the access token (default
	// GITLAB_TOKEN); TokenFile names a file holding it instead.
	TokenEnv  string `yaml:"token_env"`
	TokenFile string `yaml:"token_file"`
	// WebhookSecretEnv or WebhookSecretFile holds the webhook's secret
	// token (X-Gitlab-Token); either turns on the webhook at
	// /webhook/gitlab.
	WebhookSecretEnv  string `yaml:"webhook_secret_env"`
	WebhookSecretFile string `yaml:"webhook_secret_file"`
	// MinAccessLevel is the least project access level a user needs to
	// start, cancel and list runs (default 30, Developer; 40 Maintainer,
	// 50 Owner).
	MinAccessLevel int `yaml:"min_access_level"`
	// MergeRequests runs the benchmarks when a merge request is opened or
	// gets new commits, if its author (or pusher) may start runs.
	MergeRequests bool `yaml:"merge_requests"`
	// Login restricts edit-in-place to notes by this account.
	Login string `yaml:"login"`
	// StatusName names the commit status (default "perfbot").
	StatusName string `yaml:"status_name"`
}

// Configured reports whether venues.gitlab sets anything.
func (g GitLab) Configured() bool { return g != GitLab{} }

// Token is the GitLab access token.
func (g GitLab) Token() Secret {
	return secret("venues.gitlab.token", g.TokenEnv, g.TokenFile, DefaultGitLabToken)
}

// WebhookSecret is the secret token GitLab sends with webhook deliveries.
func (g GitLab) WebhookSecret() Secret {
	return secret("venues.gitlab.webhook_secret", g.WebhookSecretEnv, g.WebhookSecretFile, "")
}

// Webhook reports whether the GitLab webhook is configured.
func (g GitLab) Webhook() bool { return g.WebhookSecretEnv != "" || g.WebhookSecretFile != "" }

// AccessLevel is the least access level that may start runs.
func (g GitLab) AccessLevel() int {
	if g.MinAccessLevel == 0 {
		return 30
	}
	return g.MinAccessLevel
}

// DefaultGitLabToken is the variable holding the GitLab token by default.
const DefaultGitLabToken = "GITLAB_TOKEN"

// EnvGitLabURL gives the GitLab instance's address.
const EnvGitLabURL = "PERFBOT_GITLAB_URL"

func (c *Config) checkGitLab(v *validator) {
	g := c.Venues.GitLab
	if g.Project != "" && !target.ValidGitLabProject(g.Project) {
		v.add("venues.gitlab.project", "expected GROUP/PROJECT (subgroups allowed), such as acme/store, got %q", g.Project)
	}
	checkURL(v, "venues.gitlab.base_url", g.BaseURL, "https", "http")
	checkEnvName(v, "venues.gitlab.token_env", g.TokenEnv)
	checkEnvName(v, "venues.gitlab.webhook_secret_env", g.WebhookSecretEnv)
	if g.TokenEnv != "" && g.TokenFile != "" {
		v.add("venues.gitlab", "give token_env or token_file, not both")
	}
	if g.WebhookSecretEnv != "" && g.WebhookSecretFile != "" {
		v.add("venues.gitlab", "give webhook_secret_env or webhook_secret_file, not both")
	}
	switch g.MinAccessLevel {
	case 0, 10, 20, 30, 40, 50:
	default:
		v.add("venues.gitlab.min_access_level", "expected a GitLab access level: 10 (Guest), 20 (Reporter), 30 (Developer), 40 (Maintainer) or 50 (Owner), got %d", g.MinAccessLevel)
	}
	if (g.Webhook() || g.MergeRequests) && g.Project == "" {
		v.add("venues.gitlab", "taking requests (webhook_secret_* or merge_requests) needs project: GROUP/PROJECT")
	}
	if g.MergeRequests && !g.Webhook() {
		v.add("venues.gitlab.merge_requests", "merge requests arrive through the webhook: set webhook_secret_env or webhook_secret_file")
	}
}
