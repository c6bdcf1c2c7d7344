package gitlab

import (
	"context"
	"strings"
	"testing"
)

// TestClientReads covers the reads the intake makes through the client
// posting uses: a merge request's head and page, access levels (a
// non-member has none), a reply note, and the project Check reads; a
// missing merge request's error carries its 404.
func TestClientReads(t *testing.T) {
	f := newFake(t)
	f.SetMember("acme/db/store", 21, 30)
	c := newClient(t, f, Config{})
	ctx := context.Background()
	mr := MR{Project: "acme/db/store", IID: 12}
	got, err := c.MergeRequest(ctx, mr)
	if err != nil || got.SHA != sha || got.IID != 12 || got.Title != "wal: batch fsync" || got.WebURL == "" {
		t.Errorf("MergeRequest = %+v, %v", got, err)
	}
	if _, err := c.MergeRequest(ctx, MR{Project: "acme/db/store", IID: 99}); StatusCode(err) != 404 {
		t.Errorf("missing merge request: err = %v, status %d; want 404", err, StatusCode(err))
	}
	if level, err := c.AccessLevel(ctx, "acme/db/store", 21); err != nil || level != 30 {
		t.Errorf("AccessLevel(member) = %d, %v; want 30", level, err)
	}
	if level, err := c.AccessLevel(ctx, "acme/db/store", 99); err != nil || level != 0 {
		t.Errorf("AccessLevel(non-member) = %d, %v; want 0", level, err)
	}
	n, err := c.CreateNote(ctx, mr, "@alice hello")
	if err != nil || n.ID == 0 || n.Author != "perfbot-bot" {
		t.Errorf("CreateNote = %+v, %v", n, err)
	}
	if found, err := c.FindNote(ctx, mr, "perfbot-bot", "@alice"); err != nil || found == nil || found.ID != n.ID {
		t.Errorf("FindNote = %+v, %v; want note %d", found, err, n.ID)
	}
	if who, err := c.Check(ctx, "acme/db/store"); err != nil || !strings.Contains(who, "acme/db/store readable") {
		t.Errorf("Check = %q, %v", who, err)
	}
}
