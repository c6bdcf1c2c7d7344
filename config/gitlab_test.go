package config

import (
	"errors"
	"strings"
	"testing"
)

func TestGitLabMistakes(t *testing.T) {
	data := `venues:
  gitlab:
    base_url: gitlab.example.org
    project: "acme"
    token_env: "glpat-0123456789"
    min_access_level: 25
    merge_requests: true
    tokn_file: /run/secrets/gitlab
triggers: {allow: ["gitlab:alice", "gitlub:bob"]}
`
	_, err := Parse([]byte(data), "c.yaml")
	var errs Errors
	if !errors.As(err, &errs) {
		t.Fatalf("err = %v, want Errors", err)
	}
	want := []string{
		`c.yaml:3:15: venues.gitlab.base_url: expected a URL such as https://host/..., got "gitlab.example.org"`,
		`c.yaml:4:14: venues.gitlab.project: expected GROUP/PROJECT (subgroups allowed), such as acme/store, got "acme"`,
		`c.yaml:5:16: venues.gitlab.token_env: expected the name of an environment variable`,
		`c.yaml:6:23: venues.gitlab.min_access_level: expected a GitLab access level`,
		`c.yaml:7:21: venues.gitlab.merge_requests: merge requests arrive through the webhook`,
		`c.yaml:8:5: venues.gitlab.tokn_file: unknown key; did you mean token_file?`,
		`c.yaml:9:36: triggers.allow[1]: "gitlub:bob": venue "gitlub", want one of github, gitlab, jira, reviewboard`,
	}
	for _, w := range want {
		found := false
		for _, e := range errs {
			if strings.HasPrefix(e.Error(), w) {
				found = true
			}
		}
		if !found {
			t.Errorf("missing %q in\n%v", w, errs)
		}
	}
	if len(errs) != len(want) {
		t.Errorf("%d errors, want %d:\n%v", len(errs), len(want), errs)
	}
	c, err := Parse([]byte(`venues:
  gitlab: {base_url: "https://gitlab.example.org", project: acme/db/store, token_file: /run/secrets/gitlab,
           webhook_secret_env: GITLAB_WEBHOOK_SECRET, min_access_level: 40, merge_requests: true}
`), "ok.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if g := c.Venues.GitLab; g.AccessLevel() != 40 || !g.Webhook() || g.Token().Source() != "file /run/secrets/gitlab" {
		t.Errorf("%+v", g)
	}
}
