package mail

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/perfbot/perfbot/internal/storetest"
	"github.com/perfbot/perfbot/trigger"
)

// TestPollSeriesBaseCommit: git format-patch --base --cover-letter writes
// base-commit into the cover letter, which is not part of the mbox the job
// applies; the job carries it apart. A malformed value is passed on as
// written for the job to refuse.
func TestPollSeriesBaseCommit(t *testing.T) {
	const sha = "63c6e1e4308746250d145794f1c6b9d41d7886a1"
	for _, c := range []struct{ name, cover, want string }{
		{"cover letter names it", "This series batches WAL syncs.\n\n wal/wal.go | 2 +-\n\nbase-commit: " + sha + "\n-- \n2.47.1\n", sha},
		{"none", "This series batches WAL syncs.\n-- \n2.47.1\n", ""},
		{"malformed", "Text.\n\nbase-commit: --upload-pack=touch /tmp/x\n-- \n2.47.1\n", "--upload-pack=touch /tmp/x"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			now := time.Now().Add(-time.Hour).Truncate(time.Second)
			cover := "cover@example.org"
			sendEmail(t, dir, cover, "", "[PATCH 0/2] Faster WAL", c.cover, now)
			sendEmail(t, dir, "p1@example.org", cover, "[PATCH 1/2] wal: add batch", patchBody("wal/batch.go"), now.Add(time.Second))
			sendEmail(t, dir, "p2@example.org", cover, "[PATCH 2/2] wal: use batch", patchBody("wal/wal.go"), now.Add(2*time.Second))
			q := &fakeQueue{}
			p := &Poller{Source: MaildirSource(dir), Queue: q, Tested: storetest.SQLite(t), List: "store-dev@lists.example.org",
				Policy: trigger.Policy{AllowSenders: []string{"dev@example.org"}}}
			if n, err := p.Poll(context.Background()); err != nil || n != 1 {
				t.Fatalf("poll queued %d, %v; want 1", n, err)
			}
			if got := q.jobs[0].BaseCommit; got != c.want {
				t.Errorf("BaseCommit = %q, want %q", got, c.want)
			}
			if strings.Contains(q.jobs[0].Patch, "base-commit") {
				t.Error("the mbox holds the cover letter")
			}
		})
	}
}
