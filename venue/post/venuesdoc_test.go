package post_test

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/venue/post"
)

// TestVenueDocExamples loads the config.yaml that opens each venue's
// section of docs/venues.md as perfbot does (config.Load, which rejects a
// key the schema lacks); the example must configure the venue and its
// client must be set up from it (with its secrets in the environment).
func TestVenueDocExamples(t *testing.T) {
	doc, err := os.ReadFile("../../docs/venues.md")
	if err != nil {
		t.Fatal(err)
	}
	sections := map[string]string{"GitHub": "github", "GitLab": "gitlab", "JIRA": "jira", "Review Board": "reviewboard", "Gerrit": "gerrit", "Mail": "mail"}
	block := regexp.MustCompile("(?s)```yaml\n(.*?)```")
	for title, venue := range sections {
		t.Run(venue, func(t *testing.T) {
			_, after, ok := strings.Cut(string(doc), "\n## "+title+"\n")
			if !ok {
				t.Fatalf("docs/venues.md has no section %q", title)
			}
			after, _, _ = strings.Cut(after, "\n## ")
			m := block.FindStringSubmatch(after)
			if m == nil {
				t.Fatalf("section %q has no yaml example", title)
			}
			file := filepath.Join(t.TempDir(), "config.yaml")
			if err := os.WriteFile(file, []byte(m[1]), 0o644); err != nil {
				t.Fatal(err)
			}
			c, err := config.Load(file)
			if err != nil {
				t.Fatalf("config.Load: %v\n%s", err, m[1])
			}
			// The file lives in /etc/perfbot: a relative repository
			// would be read from there.
			if r := c.Project.Repo; !filepath.IsAbs(r) && !strings.Contains(r, "://") {
				t.Errorf("project.repo %q is relative to the config's folder, not a path or URL that works from /etc/perfbot", r)
			}
			pc := c.Venues
			sec := reflect.ValueOf(pc)
			for i := 0; i < sec.NumField(); i++ {
				if tag, _, _ := strings.Cut(sec.Type().Field(i).Tag.Get("yaml"), ","); tag == venue && sec.Field(i).IsZero() {
					t.Fatalf("the example configures no venues.%s", venue)
				}
			}
			env := map[string]string{"GITHUB_TOKEN": "t", "GITLAB_TOKEN": "t", "JIRA_USER": "u", "JIRA_TOKEN": "t", "REVIEWBOARD_TOKEN": "t", "GERRIT_HTTP_PASSWORD": "p"}
			r := post.NewRouter(pc, post.Options{Getenv: func(k string) string { return env[k] }})
			if venue == "mail" && pc.Mail.CAFile != "" {
				if _, err := os.Stat(pc.Mail.CAFile); err != nil {
					t.Skipf("ca_file %s is absent here (install ssl-cert)", pc.Mail.CAFile)
				}
			}
			if err := r.Configured(venue); err != nil {
				t.Errorf("the example does not set %s up: %v", venue, err)
			}
		})
	}
}
