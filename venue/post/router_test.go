package post

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/internal/fake/reviewboardfake"
	"github.com/perfbot/perfbot/target"
	"github.com/perfbot/perfbot/venue/retry"
)

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestConfigYAML(t *testing.T) {
	src := `
github: {repo: acme/store, token_env: GH_PAT, webhook_secret_env: PERFBOT_WEBHOOK_SECRET}
jira:   {url: https://issues.example.org, project: STORE, user_env: JIRA_USER, token_env: JIRA_TOKEN, deployment: server}
reviewboard: {url: https://reviews.example.org, repository: store, token_env: REVIEWBOARD_TOKEN}
mail:   {smtp: "smtp.example.org:587", from: "perfbot <perfbot@example.org>", list: dev@store.example.org, imap: "imap.example.org:993"}
`
	dec := yaml.NewDecoder(strings.NewReader(src))
	dec.KnownFields(true)
	var cfg config.Venues
	if err := dec.Decode(&cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.GitHub.TokenEnv != "GH_PAT" || cfg.JIRA.Deployment != "server" || cfg.Mail.SMTP != "smtp.example.org:587" || cfg.ReviewBoard.Repository != "store" {
		t.Errorf("%+v", cfg)
	}
}

func TestUnconfiguredVenues(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name   string
		cfg    config.Venues
		env    map[string]string
		target string
		want   string
	}{
		{"github without token", config.Venues{}, nil, "github:acme/store#7", "no token in $GITHUB_TOKEN"},
		{"github custom env", config.Venues{GitHub: config.GitHub{TokenEnv: "GH_PAT"}}, nil, "github:acme/store#7", "no token in $GH_PAT"},
		{"github missing file", config.Venues{GitHub: config.GitHub{TokenFile: filepath.Join(dir, "nope")}}, nil, "github:acme/store#7", "nope: no such file"},
		{"github app half set", config.Venues{GitHub: config.GitHub{AppID: "1"}}, nil, "github:acme/store#7", "installation_id"},
		{"github bare number", config.Venues{}, map[string]string{"GITHUB_TOKEN": "ghp_x0123456789"}, "github:#7", "needs venues.github.repo"},
		{"jira without url", config.Venues{}, nil, "jira:STORE-1", "set PERFBOT_JIRA_URL or venues.jira.url"},
		{"jira without user", config.Venues{JIRA: config.JIRA{URL: "https://j.example.org"}}, nil, "jira:STORE-1", "no user in $JIRA_USER"},
		{"jira without token", config.Venues{JIRA: config.JIRA{URL: "https://j.example.org"}}, map[string]string{"JIRA_USER": "bot"}, "jira:STORE-1", "no API token or password in $JIRA_TOKEN"},
		{"reviewboard without url", config.Venues{}, nil, "reviewboard:42", "set PERFBOT_REVIEWBOARD_URL"},
		{"reviewboard without token", config.Venues{ReviewBoard: config.ReviewBoard{URL: "https://r.example.org"}}, nil, "reviewboard:42", "no API token in $REVIEWBOARD_TOKEN"},
		{"gerrit without url", config.Venues{}, nil, "gerrit:1234", "set PERFBOT_GERRIT_URL or venues.gerrit.url"},
		{"gerrit without user", config.Venues{Gerrit: config.Gerrit{URL: "https://g.example.org"}}, nil, "gerrit:1234/2", "no account (venues.gerrit.user)"},
		{"gerrit without password", config.Venues{Gerrit: config.Gerrit{URL: "https://g.example.org", User: "perfbot"}}, nil, "gerrit:1234", "no HTTP password in $GERRIT_HTTP_PASSWORD"},
		{"mail without smtp", config.Venues{}, nil, "mail:a@example.org", "set PERFBOT_SMTP=host:port"},
		{"mail without from", config.Venues{Mail: config.Mail{SMTP: "localhost:25"}}, nil, "mail:a@example.org", "set PERFBOT_MAIL_FROM"},
		{"mail without password", config.Venues{Mail: config.Mail{SMTP: "localhost:25", From: "p@example.org"}}, map[string]string{"SMTP_USER": "bot"}, "mail:a@example.org", "no password in $SMTP_PASSWORD"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := NewRouter(tc.cfg, Options{Getenv: envOf(tc.env)})
			to, err := target.Parse(tc.target)
			if err != nil {
				t.Fatal(err)
			}
			_, err = r.Post(context.Background(), to, answer.Answer{Key: "k"})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "post "+tc.target) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

// TestRouteToReviewBoard posts through the router to a Review Board fake,
// with the token read from a file, and checks a rejected token stays out of
// the error.
func TestRouteToReviewBoard(t *testing.T) {
	f := reviewboardfake.New(t)
	f.AddRequest(reviewboardfake.Request{ID: 42, Summary: "Faster checksums", Submitter: "alice", Repository: "3"})
	f.EchoAuth()
	file := filepath.Join(t.TempDir(), "rb-token")
	if err := os.WriteFile(file, []byte(f.Token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	quick := retry.Policy{Sleep: func(context.Context, time.Duration) error { return nil }}
	r := NewRouter(config.Venues{ReviewBoard: config.ReviewBoard{URL: f.URL, TokenFile: file}}, Options{Getenv: envOf(nil), Retry: quick})
	link, err := r.Post(context.Background(), target.MustParse("reviewboard:42"), answer.Answer{Key: "job", Renderings: map[answer.Format]answer.Rendering{answer.MarkdownGFM: {Full: "**1 better**"}}})
	reviews := f.Reviews(42, f.User)
	if err != nil || link != f.URL+"r/42/#review101" || len(reviews) != 1 || !strings.Contains(reviews[0].BodyTop, "**1 better**") {
		t.Fatalf("link %q, err %v, reviews %+v", link, err, reviews)
	}
	if err := r.Configured("reviewboard"); err != nil {
		t.Error(err)
	}

	bad := filepath.Join(t.TempDir(), "bad")
	_ = os.WriteFile(bad, []byte("rb-WRONG-token-987654321"), 0o600)
	r = NewRouter(config.Venues{ReviewBoard: config.ReviewBoard{URL: f.URL, TokenFile: bad}}, Options{Getenv: envOf(nil), Retry: quick})
	_, err = r.Post(context.Background(), target.MustParse("reviewboard:42"), answer.Answer{Key: "job"})
	if err == nil || bytes.Contains([]byte(err.Error()), []byte("rb-WRONG-token")) || !strings.Contains(err.Error(), "401") {
		t.Fatalf("err = %v", err)
	}
}
