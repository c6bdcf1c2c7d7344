package reviewboard

import (
	"fmt"
	"testing"
	"time"

	"github.com/perfbot/perfbot/internal/fake/reviewboardfake"
)

// fakePatch is the diff of every revision on the fake site.
const fakePatch = "diff --git a/wal.go b/wal.go\nindex 1111111..2222222 100644\n--- a/wal.go\n+++ b/wal.go\n@@ -1 +1 @@\n-old\n+new\n"

// updated is when the fake site's review request 42+i was last updated.
func updated(i int) time.Time {
	return time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Minute)
}

// newSite starts a fake Review Board under /rb/ with review requests 42 to
// 71 on repository 3, by alice, each with three diff revisions.
func newSite(t *testing.T) *reviewboardfake.Server {
	f := reviewboardfake.NewAt(t, "/rb/")
	for i := range 30 {
		f.AddRequest(reviewboardfake.Request{ID: 42 + i, Summary: fmt.Sprintf("Speed up WAL sync %d", i), Submitter: "alice",
			Repository: "3", Patches: []string{fakePatch, fakePatch, fakePatch}, Updated: updated(i)})
	}
	return f
}

// published is a published review on the fake site at 2026-11-30 09:00
// UTC, by user.
func published(id int, user, text, textType string) reviewboardfake.Review {
	return reviewboardfake.Review{ID: id, User: user, BodyTop: text, BodyTopTextType: textType, Public: true,
		Timestamp: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)}
}
