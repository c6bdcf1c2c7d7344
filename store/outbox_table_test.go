package store

import (
	"strings"
	"testing"
	"time"
)

// TestWriteAnswers lists each answer on one line, with its error on one
// line cut to 200 characters, and counts those given up.
func TestWriteAnswers(t *testing.T) {
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	var b strings.Builder
	failed, err := WriteAnswers(&b, []Answer{
		{Status: OutboxPending, Target: "github:acme/store#1", Key: "k1", Attempts: 2, Since: at, NextAt: at.Add(time.Minute), LastError: "502\nbad gateway"},
		{Status: OutboxFailed, Target: "jira:STORE-2", Key: "k2", Attempts: 9, Since: at, LastError: strings.Repeat("x", 300)},
		{Status: OutboxDelivered, Target: "mail:dev@example.org", Key: "k3", Since: at},
	})
	if err != nil || failed != 1 {
		t.Fatalf("failed %d, err %v; want 1, nil", failed, err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 4 || !strings.Contains(lines[0], "LAST ERROR") {
		t.Fatalf("want a header and 3 rows, got:\n%s", b.String())
	}
	if !strings.Contains(lines[1], "2026-12-01T10:01:00Z") || !strings.HasSuffix(lines[1], "502 bad gateway") {
		t.Errorf("pending row %q: want its next try and its error on one line", lines[1])
	}
	if !strings.HasSuffix(lines[2], strings.Repeat("x", 199)+"…") {
		t.Errorf("failed row %q: want the error cut to 200 characters", lines[2])
	}
	if f := strings.Fields(lines[3]); f[len(f)-1] != "-" || f[len(f)-2] != "-" {
		t.Errorf("delivered row %q: want no next try and no error", lines[3])
	}
	if n, err := WriteAnswers(&b, nil); n != 0 || err != nil {
		t.Errorf("no answers: %d, %v", n, err)
	}
}
