package mail

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfbot/perfbot/internal/storetest"
	"github.com/perfbot/perfbot/job/jobspec"
	"github.com/perfbot/perfbot/trigger"
)

func TestParseSubject(t *testing.T) {
	tests := []struct {
		subject string
		ok      bool
		want    Subject
	}{
		{"[PATCH] wal: batch syncs", true, Subject{1, 1, 1, "wal: batch syncs"}},
		{"[PATCH v3 2/5] wal: batch syncs", true, Subject{3, 2, 5, "wal: batch syncs"}},
		{"[PATCH v2 0/2] Faster WAL", true, Subject{2, 0, 2, "Faster WAL"}},
		{"[RFC PATCH net-next 1/2] x", true, Subject{1, 1, 2, "x"}},
		{"[PATCH 01/12] zero-padded", true, Subject{1, 1, 12, "zero-padded"}},
		{"[sums-dev] [PATCH v7 0/3] Faster sums", true, Subject{7, 0, 3, "Faster sums"}},
		{"[PATCH v7 0/3] Faster sums", true, Subject{7, 0, 3, "Faster sums"}},
		{"[RFC PATCH] idea", true, Subject{1, 1, 1, "idea"}},
		{"[PATCH net-next v2 1/5] net: x", true, Subject{2, 1, 5, "net: x"}},
		{"[sums-dev] [RFC PATCH net-next v3 2/4] y", true, Subject{3, 2, 4, "y"}},
		{"[sums-dev] Re: [PATCH v7 0/3] Faster sums", false, Subject{}},
		{"[sums-dev] release notes", false, Subject{}},
		{"Re: [PATCH v2 1/2] x", false, Subject{}},
		{"[ANNOUNCE] 2.5.0", false, Subject{}},
		{"[PATCH 3/2] bad counter", false, Subject{}},
		{"wal: batch syncs", false, Subject{}},
	}
	for _, tt := range tests {
		got, ok := ParseSubject(tt.subject)
		if ok != tt.ok || got != tt.want {
			t.Errorf("ParseSubject(%q) = %+v, %v; want %+v, %v", tt.subject, got, ok, tt.want, tt.ok)
		}
	}
}

// sendEmail writes a mail as git send-email would send it into the
// maildir's new folder.
func sendEmail(t *testing.T, dir, id, inReplyTo, subject, body string, at time.Time) {
	t.Helper()
	sendEmailFrom(t, dir, "Dev Eloper <dev@example.org>", id, inReplyTo, subject, body, at)
}

// sendEmailFrom is sendEmail with the sender from.
func sendEmailFrom(t *testing.T, dir, from, id, inReplyTo, subject, body string, at time.Time) {
	t.Helper()
	var h strings.Builder
	fmt.Fprintf(&h, "Return-Path: <dev@example.org>\r\n")
	fmt.Fprintf(&h, "From: %s\r\n", from)
	fmt.Fprintf(&h, "To: store-dev@lists.example.org\r\n")
	fmt.Fprintf(&h, "Subject: %s\r\n", subject)
	fmt.Fprintf(&h, "Date: %s\r\n", at.Format(time.RFC1123Z))
	fmt.Fprintf(&h, "Message-Id: <%s>\r\n", id)
	if inReplyTo != "" {
		fmt.Fprintf(&h, "In-Reply-To: <%s>\r\nReferences: <%s>\r\n", inReplyTo, inReplyTo)
	}
	fmt.Fprintf(&h, "X-Mailer: git-send-email 2.47.1\r\nMIME-Version: 1.0\r\nContent-Transfer-Encoding: 8bit\r\n\r\n")
	h.WriteString(strings.ReplaceAll(body, "\n", "\r\n"))
	for _, sub := range []string{"new", "cur", "tmp"} {
		os.MkdirAll(filepath.Join(dir, sub), 0o755)
	}
	name := filepath.Join(dir, "new", fmt.Sprintf("%d.%s.host", at.UnixNano(), strings.ReplaceAll(id, "@", "_")))
	if err := os.WriteFile(name, []byte(h.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(name, at, at)
}

func patchBody(file string) string {
	return fmt.Sprintf("Signed-off-by: Dev Eloper <dev@example.org>\n---\n %s | 2 +-\n 1 file changed\n\ndiff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n@@ -1 +1 @@\n-old\n+new\n-- \n2.47.1\n", file, file, file, file, file)
}

type fakeQueue struct{ jobs []jobspec.Spec }

func (q *fakeQueue) Enqueue(ctx context.Context, job jobspec.Spec) (int64, bool, error) {
	q.jobs = append(q.jobs, job)
	return int64(len(q.jobs)), false, nil
}

func TestPollAssemblesSeries(t *testing.T) {
	dir := t.TempDir()
	st := storetest.SQLite(t)
	now := time.Now().Add(-time.Hour).Truncate(time.Second)
	cover := "20261130081500.1-cover@example.org"
	sendEmail(t, dir, cover, "", "[PATCH v2 0/3] Faster WAL", "This series batches WAL syncs.\n", now)
	sendEmail(t, dir, "20261130081500.2@example.org", cover, "[PATCH v2 1/3] wal: add batch", patchBody("wal/batch.go"), now.Add(time.Second))
	sendEmail(t, dir, "20261130081500.3@example.org", cover, "[PATCH v2 2/3] wal: use batch", patchBody("wal/wal.go"), now.Add(2*time.Second))
	sendEmail(t, dir, "reply-1@example.org", cover, "Re: [PATCH v2 0/3] Faster WAL", "Nice!\n", now.Add(3*time.Second))
	sendEmail(t, dir, "lone@example.org", "", "[PATCH] docs: fix typo", patchBody("README"), now.Add(4*time.Second))

	q := &fakeQueue{}
	p := &Poller{Source: MaildirSource(dir), Queue: q, Tested: st, List: "store-dev@lists.example.org",
		Policy: trigger.Policy{AllowSenders: []string{"dev@example.org"}}}
	ctx := context.Background()
	if n, err := p.Poll(ctx); err != nil || n != 1 {
		t.Fatalf("first poll queued %d, %v; want 1 (the lone patch; the series lacks 3/3)", n, err)
	}
	if q.jobs[0].Key != "mail:lone@example.org/v1" || q.jobs[0].InReplyTo != "lone@example.org" {
		t.Errorf("lone patch job = %+v", q.jobs[0])
	}
	sendEmail(t, dir, "20261130081500.4@example.org", cover, "[PATCH v2 3/3] wal: tests", patchBody("wal/wal_test.go"), now.Add(5*time.Second))
	for i, want := range []int{1, 0} {
		if n, err := p.Poll(ctx); err != nil || n != want {
			t.Fatalf("poll %d after 3/3 queued %d, %v; want %d", i, n, err, want)
		}
	}
	j := q.jobs[1]
	if j.Key != "mail:"+cover+"/v2" || j.InReplyTo != cover || j.References[len(j.References)-1] != cover {
		t.Errorf("series job threading = key %q in-reply-to %q refs %q", j.Key, j.InReplyTo, j.References)
	}
	if j.Targets[0].String() != "mail:store-dev@lists.example.org?cc=dev%40example.org" || j.Subject != "[PATCH v2 0/3] Faster WAL" {
		t.Errorf("targets = %q", j.Targets)
	}
	if strings.Count(j.Patch, "From perfbot ") != 3 || strings.Index(j.Patch, "wal/batch.go") > strings.Index(j.Patch, "wal/wal_test.go") {
		t.Errorf("mbox does not hold the three patches in order:\n%s", j.Patch)
	}
	if strings.Contains(j.Patch, "This series batches") || strings.Contains(j.Patch, "\r\n") {
		t.Error("mbox holds the cover letter or CRLF line ends")
	}
}

func TestAssembleWithoutCoverAndChained(t *testing.T) {
	// git send-email --chain-reply-to: each patch replies to the one
	// before; References still starts with the first patch.
	p1 := &Message{ID: "p1@x", Subject: "[PATCH 1/3] a", Raw: []byte("Subject: a\n\n")}
	p2 := &Message{ID: "p2@x", InReplyTo: "p1@x", References: []string{"p1@x"}, Subject: "[PATCH 2/3] b", Raw: []byte("x")}
	p3 := &Message{ID: "p3@x", InReplyTo: "p2@x", References: []string{"p1@x", "p2@x"}, Subject: "[PATCH 3/3] c", Raw: []byte("y")}
	got := Assemble([]*Message{p3, p1, p2})
	if len(got) != 1 || got[0].Root != "p1@x" || got[0].Patches[0] != p1 || got[0].Patches[2] != p3 {
		t.Fatalf("Assemble = %+v", got)
	}
	// Another version of the same series in the same thread is its own
	// series, and incomplete.
	v2 := &Message{ID: "v2@x", InReplyTo: "p1@x", References: []string{"p1@x"}, Subject: "[PATCH v2 1/2] a"}
	if got := Assemble([]*Message{p1, p2, p3, v2}); len(got) != 1 {
		t.Fatalf("Assemble with a partial v2 = %d series, want 1", len(got))
	}
}
