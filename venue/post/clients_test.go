package post

import (
	"strings"
	"testing"

	"github.com/perfbot/perfbot/config"
)

// TestClients: the intakes get the very clients that post, and a venue
// that is not set up gives the reason.
func TestClients(t *testing.T) {
	env := envOf(map[string]string{"GITLAB_TOKEN": "glpat-x", "REVIEWBOARD_TOKEN": "rb", "GERRIT_HTTP_PASSWORD": "pw",
		"JIRA_USER": "bot", "JIRA_TOKEN": "jt"})
	r := NewRouter(config.Venues{GitLab: config.GitLab{BaseURL: "https://gitlab.example.org"},
		JIRA:        config.JIRA{URL: "https://issues.example.org"},
		ReviewBoard: config.ReviewBoard{URL: "https://rb.example.org"},
		Gerrit:      config.Gerrit{URL: "https://review.example.org", User: "perfbot"}}, Options{Getenv: env})
	if c, err := r.GitLab(); err != nil || c != r.posters["gitlab"] {
		t.Errorf("GitLab() = %v, %v: want the posting client", c, err)
	}
	if c, err := r.JIRA(); err != nil || c != r.posters["jira"] {
		t.Errorf("JIRA() = %v, %v: want the posting client", c, err)
	}
	if c, err := r.ReviewBoard(); err != nil || c != r.posters["reviewboard"] {
		t.Errorf("ReviewBoard() = %v, %v: want the posting client", c, err)
	}
	if c, err := r.Gerrit(); err != nil || c != r.posters["gerrit"] {
		t.Errorf("Gerrit() = %v, %v: want the posting client", c, err)
	}
	r = NewRouter(config.Venues{}, Options{Getenv: envOf(nil)})
	if _, err := r.GitLab(); err == nil || !strings.Contains(err.Error(), "no token in $GITLAB_TOKEN") {
		t.Errorf("GitLab() without a token: err = %v", err)
	}
	if _, err := r.Gerrit(); err == nil || !strings.Contains(err.Error(), "gerrit is not configured") {
		t.Errorf("Gerrit() without a site: err = %v", err)
	}
}
