package followup

import (
	"testing"

	"github.com/perfbot/perfbot/config"
)

func TestIsGitHubRepo(t *testing.T) {
	cfg := &config.Config{}
	cfg.Venues.GitHub.Repo = "acme/store"
	s := New(Deps{Config: cfg})
	for _, tc := range []struct {
		repo, full string
		want       bool
	}{
		{"", "acme/store", true},
		{"", "acme/other", false},
		{"https://github.com/acme/store.git", "acme/store", true},
		{"git@github.com:acme/store.git", "ACME/Store", true},
		{"https://github.com/xacme/store", "acme/store", false},
		{"https://github.com/acme/store", "", false},
	} {
		if got := s.isGitHubRepo(config.TrackedBranch{Repo: tc.repo}, tc.full); got != tc.want {
			t.Errorf("isGitHubRepo(%q, %q) = %v, want %v", tc.repo, tc.full, got, tc.want)
		}
	}
}
