package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perfbot/perfbot/store"
)

// syncBuffer is a bytes.Buffer safe to write and read concurrently.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestWebCmd(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	if err := run(context.Background(), []string{"web", "--db", filepath.Join(dir, "missing.db")}, &out, &out); err == nil ||
		!strings.Contains(err.Error(), "missing.db") {
		t.Errorf("a missing store: %v, want an error naming it", err)
	}

	db := filepath.Join(dir, "perfbot.db")
	st, err := store.Open(context.Background(), store.SQLite, db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.RecordRun(context.Background(), &store.Run{JobKey: "cli", BaseRef: "main", Status: store.StatusDone}); err != nil {
		t.Fatal(err)
	}
	st.Close()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var logs syncBuffer
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"web", "--db", db, "--listen", "127.0.0.1:0"}, io.Discard, &logs) }()
	addr := regexp.MustCompile(`url=(http://127\.0\.0\.1:\d+/)`)
	var url string
	for deadline := time.Now().Add(30 * time.Second); url == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := addr.FindStringSubmatch(logs.String()); m != nil {
			url = m[1]
		}
	}
	if url == "" {
		t.Fatalf("perfbot web did not say where it listens:\n%s", logs.String())
	}
	resp, err := http.Get(url + "runs/1")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "Run #1") {
		t.Errorf("GET /runs/1: %s\n%s", resp.Status, body)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("perfbot web ended with %v", err)
	}
}
