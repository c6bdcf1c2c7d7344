package reviewboard

import (
	"context"
	"testing"
	"time"

	"github.com/perfbot/perfbot/target"
	"github.com/perfbot/perfbot/venue/internal/wiretest"
)

// TestWire records what a first post and a rerun send to Review Board.
func TestWire(t *testing.T) {
	f := newSite(t)
	var rec wiretest.Recorder
	f.Wrap(rec.Wrap)
	var waits []time.Duration
	c := newClient(t, f, f.Token, &waits)
	ctx := context.Background()
	if _, err := c.Post(ctx, target.MustParse("reviewboard:42"), msg("job-1", "| Threads | Default | Async | Diff |\n|---|---|---|---|\n| 10 | 1.0 | 3.7 | 3.7x |\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Post(ctx, target.MustParse("reviewboard:42"), msg("job-1", "rerun\n")); err != nil {
		t.Fatal(err)
	}
	wiretest.Golden(t, "post-then-rerun", rec.Transcript())
}
