package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfbot/perfbot/store"
)

// TestStatusCmd: perfbot status lists the answers waiting and given up,
// with their last error, and fails when one was given up.
func TestStatusCmd(t *testing.T) {
	db := filepath.Join(t.TempDir(), "perfbot.db")
	ctx := context.Background()
	st, err := store.Open(ctx, store.SQLite, db)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for _, target := range []string{"mail:dev@lists.example.org", "jira:STORE-9"} {
		if _, err := st.PutAnswer(ctx, "k1", target, "success", true, []byte(`{}`), now, time.Time{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.ClaimAnswers(ctx, "me", now, time.Minute, 10); err != nil {
		t.Fatal(err)
	}
	st.AnswerRetry(ctx, "k1", "mail:dev@lists.example.org", "dial tcp 127.0.0.1:25: connect: connection refused", now, now.Add(time.Minute))
	st.AnswerFailed(ctx, "k1", "jira:STORE-9", 1, "jira: 404 Not Found:\nIssue does not exist", now)
	st.Close()

	var out, errb bytes.Buffer
	err = run(ctx, []string{"status", "--db", db}, &out, &errb)
	if err == nil || !strings.Contains(err.Error(), "1 answer given up") {
		t.Errorf("err = %v, want one answer given up", err)
	}
	got := out.String()
	for _, want := range []string{"jobs: 0 queued or running", "answers: 2 waiting or given up",
		"pending   success  mail:dev@lists.example.org", "connection refused",
		"failed    success  jira:STORE-9", "jira: 404 Not Found: Issue does not exist"} {
		if !strings.Contains(got, want) {
			t.Errorf("status output lacks %q:\n%s", want, got)
		}
	}
}
