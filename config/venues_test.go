package config

import (
	"reflect"
	"testing"
)

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// TestVenuesFromEnv: the venue addresses the environment gives, and
// config.yaml winning over the environment.
func TestVenuesFromEnv(t *testing.T) {
	cfg := VenuesFromEnv(envOf(map[string]string{
		EnvGitHubURL: "https://ghe.example.com/api/v3/", EnvJIRAURL: "https://issues.example.org",
		EnvReviewBoardURL: "https://reviews.example.org", EnvSMTP: "smtp.example.org:587", EnvMailFrom: "perfbot <perfbot@example.org>",
	}))
	want := Venues{
		GitHub: GitHub{URL: "https://ghe.example.com/api/v3/"}, JIRA: JIRA{URL: "https://issues.example.org"},
		ReviewBoard: ReviewBoard{URL: "https://reviews.example.org"}, Mail: Mail{SMTP: "smtp.example.org:587", From: "perfbot <perfbot@example.org>"},
	}
	if !reflect.DeepEqual(cfg, want) {
		t.Errorf("got %+v", cfg)
	}
	// config.yaml wins over the environment.
	if got := (Venues{JIRA: JIRA{URL: "https://yaml.example.org"}}).WithEnv(envOf(map[string]string{EnvJIRAURL: "https://env.example.org"})); got.JIRA.URL != "https://yaml.example.org" {
		t.Errorf("env overrode config: %q", got.JIRA.URL)
	}
}
