package post_test

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/perfbot/perfbot/bot"
	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/review/post"
)

// TestVenueDocExamples loads the config.yaml that opens each venue's
// section of docs/venues.md as perfbot does: config.Load, the service's
// bot.Decode and the clients' post.Config; every key under venues.VENUE
// must be one that one of them reads, and the venue's client must be set
// up from it (with its secrets in the environment).
func TestVenueDocExamples(t *testing.T) {
	doc, err := os.ReadFile("../../docs/venues.md")
	if err != nil {
		t.Fatal(err)
	}
	sections := map[string]string{"GitHub": "github", "JIRA": "jira", "Review Board": "reviewboard", "Mail": "mail"}
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
			if _, err := bot.Decode([]byte(m[1]), file); err != nil {
				t.Fatalf("bot.Decode: %v", err)
			}
			var pc post.Config
			if err := c.Venues.Decode(&pc); err != nil {
				t.Fatalf("venues: %v", err)
			}
			// Every key of venues.VENUE is read by the service or a client.
			var raw map[string]map[string]yaml.Node
			if err := c.Venues.Decode(&raw); err != nil {
				t.Fatal(err)
			}
			if len(raw[venue]) == 0 {
				t.Fatalf("the example configures no venues.%s", venue)
			}
			known := map[string]bool{}
			for _, v := range []any{bot.Venues{}, post.Config{}} {
				vt := reflect.TypeOf(v)
				for i := 0; i < vt.NumField(); i++ {
					if tag, _, _ := strings.Cut(vt.Field(i).Tag.Get("yaml"), ","); tag == venue {
						ft := vt.Field(i).Type
						for k := 0; k < ft.NumField(); k++ {
							name, _, _ := strings.Cut(ft.Field(k).Tag.Get("yaml"), ",")
							known[name] = true
						}
					}
				}
			}
			for k := range raw[venue] {
				if !known[k] {
					t.Errorf("venues.%s.%s is read by nothing", venue, k)
				}
			}
			env := map[string]string{"GITHUB_TOKEN": "t", "JIRA_USER": "u", "JIRA_TOKEN": "t", "REVIEWBOARD_TOKEN": "t"}
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
