package jira

import (
	"context"
	"testing"
	"time"

	"github.com/perfbot/perfbot/target"
	"github.com/perfbot/perfbot/venue/internal/wiretest"
)

// TestWire records what a first post, a rerun and searches send to JIRA.
func TestWire(t *testing.T) {
	f := newFakeJIRA(t)
	var rec wiretest.Recorder
	f.srv.Config.Handler = rec.Wrap(f.srv.Config.Handler)
	var waits []time.Duration
	c := newClient(t, f, Config{User: f.user, Token: f.token}, &waits)
	ctx := context.Background()
	if _, err := c.Post(ctx, target.MustParse("jira:STORE-1"), message("job-1", "||Threads||Default||Async||Diff||\n|10|1.0|3.7|{color:green}3.7x{color}|\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Post(ctx, target.MustParse("jira:STORE-1"), message("job-1", "rerun\n")); err != nil {
		t.Fatal(err)
	}
	wiretest.Golden(t, "post-then-rerun", rec.Transcript())

	for _, cloud := range []bool{false, true} {
		f := newFakeJIRA(t)
		f.cloud = cloud
		f.issues = []string{"STORE-1", "STORE-2", "STORE-3"}
		var rec wiretest.Recorder
		f.srv.Config.Handler = rec.Wrap(f.srv.Config.Handler)
		c := newClient(t, f, Config{PAT: "pat-0123456789"}, &waits)
		f.pat = "pat-0123456789"
		if _, err := c.Search(ctx, "project = STORE AND attachments IS NOT EMPTY ORDER BY updated", 0); err != nil {
			t.Fatal(err)
		}
		name := "search-server"
		if cloud {
			name = "search-cloud"
		}
		wiretest.Golden(t, name, rec.Transcript())
	}
}
