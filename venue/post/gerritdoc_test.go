package post_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/target"

	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/internal/fake/gerritfake"
	"github.com/perfbot/perfbot/venue/post"
)

// TestGerritDocExample loads the config.yaml of docs/gerrit.md as
// perfbot does, points it at a fake Gerrit, and posts through the router
// with the HTTP password read from the file the example names.
func TestGerritDocExample(t *testing.T) {
	doc, err := os.ReadFile("../../docs/gerrit.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/gerrit.md has no yaml example")
	}
	f := gerritfake.New(t)
	f.AddChange(gerritfake.Change{Number: 1234, Project: "store", Branch: "main", ChangeID: "I1", Subject: "x"})
	f.AddPatchSet(1234, gerritfake.PatchSet{SHA: "aaaa111122223333444455556666777788889999"})
	dir := t.TempDir()
	src := strings.ReplaceAll(string(m[1]), "https://review.example.org", f.URL)
	src = strings.ReplaceAll(src, "/etc/perfbot/gerrit-password", filepath.Join(dir, "pw"))
	if err := os.WriteFile(filepath.Join(dir, "pw"), []byte(f.Password+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := config.Load(file)
	if err != nil {
		t.Fatalf("config.Load: %v\n%s", err, src)
	}
	if !c.Venues.Gerrit.Poll || c.Venues.Gerrit.Query == "" {
		t.Errorf("the example does not poll: %+v", c.Venues.Gerrit)
	}
	r := post.NewRouter(c.Venues, post.Options{Getenv: func(string) string { return "" }})
	if who, err := r.Check(context.Background(), "gerrit"); err != nil || who != "signed in as perfbot" {
		t.Fatalf("check: %q %v", who, err)
	}
	to, err := target.Parse("gerrit:1234")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Post(context.Background(), to, answer.Answer{Key: "k", Summary: "1 worse", State: answer.StateFailure, Renderings: map[answer.Format]answer.Rendering{answer.Text: {Full: "WORSE\n"}}}); err != nil {
		t.Fatal(err)
	}
	if got := f.Change(1234).Votes; len(got) != 1 || got[0] != "Performance-1" {
		t.Errorf("votes %v", got)
	}
}
