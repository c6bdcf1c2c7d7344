package post

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/internal/fake/gitlabfake"
	"github.com/perfbot/perfbot/target"
	"github.com/perfbot/perfbot/venue/retry"
)

// TestRouteToGitLab posts gitlab:!N (the configured project) and
// gitlab:GROUP/PROJECT!N through the router, with the token from a file,
// and edits the one note in place; without a token the error says where
// it was looked for.
func TestRouteToGitLab(t *testing.T) {
	const token = "glpat-route0123456789"
	f := gitlabfake.New(token, "perfbot")
	defer f.Close()
	const sha = "89abcdef0123456789abcdef0123456789abcdef"
	f.AddMR(gitlabfake.MR{Project: "acme/store", IID: 3, SHA: sha})
	files := map[string][]byte{"/run/secrets/gitlab": []byte(token + "\n")}
	opt := Options{Getenv: envOf(nil), ReadFile: func(name string) ([]byte, error) { return files[name], nil }, Retry: retry.Policy{Sleep: func(context.Context, time.Duration) error { return nil }},
		ServiceURL: "https://perf.example.org"}
	r := NewRouter(config.Venues{GitLab: config.GitLab{BaseURL: f.URL, Project: "acme/store", TokenFile: "/run/secrets/gitlab"}}, opt)
	for _, where := range []string{"!3", "acme/store!3"} {
		link, err := r.Post(context.Background(), target.MustParse("gitlab:"+where),
			answer.Answer{Key: "job", State: answer.StateSuccess, Summary: "no change", Commit: sha,
				Renderings: map[answer.Format]answer.Rendering{answer.MarkdownGFM: {Full: "**no change**"}}})
		if err != nil || !strings.HasPrefix(link, f.URL+"/acme/store/-/merge_requests/3#note_") {
			t.Fatalf("%s: link %q, err %v", where, link, err)
		}
	}
	if n := f.Notes("acme/store", 3); len(n) != 1 || !strings.HasSuffix(n[0].Body, "\n**no change**") {
		t.Errorf("notes %+v", n)
	}
	if st := f.Statuses(); len(st) != 2 || st[0].State != "success" || st[0].SHA != sha {
		t.Errorf("statuses %+v", st)
	}
	if who, err := r.Check(context.Background(), "gitlab"); err != nil || who != "signed in as perfbot; acme/store readable" {
		t.Errorf("Check = %q, %v", who, err)
	}
	r = NewRouter(config.Venues{GitLab: config.GitLab{BaseURL: f.URL}}, Options{Getenv: envOf(nil)})
	_, err := r.Post(context.Background(), target.MustParse("gitlab:acme/store!3"), answer.Answer{Key: "k"})
	if err == nil || !strings.Contains(err.Error(), "no token in $GITLAB_TOKEN") {
		t.Errorf("err = %v", err)
	}
	r = NewRouter(config.Venues{}, Options{Getenv: envOf(map[string]string{"GITLAB_TOKEN": token})})
	_, err = r.Post(context.Background(), target.MustParse("gitlab:!3"), answer.Answer{Key: "k"})
	if err == nil || !strings.Contains(err.Error(), "needs venues.gitlab.project") {
		t.Errorf("bare !N without a project: err = %v", err)
	}
}

// TestGitLabDocExample loads the config.yaml example of docs/gitlab.md as
// perfbot does; the GitLab client must be set up from it.
func TestGitLabDocExample(t *testing.T) {
	doc, err := os.ReadFile("../../docs/gitlab.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/gitlab.md has no yaml example")
	}
	file := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(file, m[1], 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := config.Load(file)
	if err != nil {
		t.Fatalf("config.Load: %v\n%s", err, m[1])
	}
	if c.Venues.GitLab.Project != "acme/store" || !c.Venues.GitLab.Webhook() {
		t.Fatalf("%+v", c.Venues.GitLab)
	}
	r := NewRouter(c.Venues, Options{Getenv: envOf(nil), ReadFile: func(name string) ([]byte, error) {
		if name != "/run/secrets/gitlab-token" {
			t.Errorf("token read from %s", name)
		}
		return []byte("glpat-doc"), nil
	}})
	if err := r.Configured("gitlab"); err != nil {
		t.Error(err)
	}
}
