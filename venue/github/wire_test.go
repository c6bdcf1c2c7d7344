package github

import (
	"context"
	"testing"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/internal/fake/githubfake"
	"github.com/perfbot/perfbot/target"
	"github.com/perfbot/perfbot/venue/internal/wiretest"
)

// TestWire records what a first post and a rerun send to GitHub.
func TestWire(t *testing.T) {
	f := githubfake.New(t, testToken)
	f.Comments = []githubfake.Comment{{ID: 1, Body: "LGTM", User: "alice"}}
	var rec wiretest.Recorder
	f.HTTPServer().Config.Handler = rec.Wrap(f.HTTPServer().Config.Handler)
	var w waits
	p := newPoster(t, f, &w, testToken)
	m := message("job-1", "1 better, 0 worse, 3 same")
	if _, err := p.Post(context.Background(), target.MustParse("github:acme/store#7"), m); err != nil {
		t.Fatal(err)
	}
	m.Set(answer.MarkdownGFM, answer.Rendering{Full: "**rerun: 2 better**\n"})
	m.State = "success"
	if _, err := p.Post(context.Background(), target.MustParse("github:acme/store#7"), m); err != nil {
		t.Fatal(err)
	}
	wiretest.Golden(t, "post-then-rerun", rec.Transcript())
}
