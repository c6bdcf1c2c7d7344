package main

import (
	"context"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/provenance"
	"github.com/perfbot/perfbot/store"
)

// TestWebScrubsHostPaths: a run whose error, failure log, provenance and
// benchmark name hold paths of the cache directory's worktree and clone
// is shown by perfbot web (its run page, /api/runs, /api/runs/ID and the
// comparison JSON) with those paths replaced as answers replace them;
// and the page shows no bidi control of a name.
func TestWebScrubsHostPaths(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache")
	wt := filepath.Join(cache, "repos", "3f9a", "wt", "patch-1")
	clone := filepath.Join(cache, "repos", "3f9a", "repo.git")
	db := filepath.Join(dir, "perfbot.db")
	st, err := store.Open(ctx, store.SQLite, db)
	if err != nil {
		t.Fatal(err)
	}
	r := &store.Run{JobKey: "cli", BaseRef: "main", Patch: wt + "/fix.patch"}
	if _, err := st.StartRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	cmp := &compare.Comparison{Base: "base", Candidates: []string{"patch"}, Rows: []compare.Row{{
		Benchmark: "BenchmarkOpen(" + wt + "/data)\u202e", Params: bench.Params{{Name: "n", Value: "1"}}, Unit: "ns/op",
		Base:       &compare.Cell{Center: 1200, N: 5},
		Candidates: []compare.Candidate{{Variant: "patch", Cell: compare.Cell{Center: 1000, N: 5}, DeltaPct: -16.7, Verdict: compare.Better}},
	}}, Failures: []provenance.Failure{{Variant: "patch", Stage: "build", Message: "go build in " + wt + " failed",
		LogTail: wt + "/wal/wal.go:12:3: undefined: x\n"}}}
	cmp.Provenance.Repo = clone
	if err := st.SaveComparison(ctx, r.ID, cmp); err != nil {
		t.Fatal(err)
	}
	r.Status, r.Error = store.StatusFailed, "build failed: exit status 1 in "+wt
	if err := st.FinishRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	st.Close()

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var logs syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"web", "--db", db, "--listen", "127.0.0.1:0", "--cache-dir", cache}, io.Discard, &logs)
	}()
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
	for _, path := range []string{"runs/1", "api/runs", "api/runs/1", "runs/1/comparison.json", "api/home", "runs/1?rows=all"} {
		resp, err := http.Get(url + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("GET /%s: %s", path, resp.Status)
			continue
		}
		if strings.Contains(string(body), cache) || strings.Contains(string(body), dir) {
			t.Errorf("GET /%s shows a host path:\n%s", path, body)
		}
		if path == "runs/1" && (strings.ContainsRune(string(body), '\u202e') || !strings.Contains(string(body), "&lt;worktree&gt;/wal/wal.go:12:3")) {
			t.Errorf("GET /%s: a bidi control, or no <worktree> in the log:\n%s", path, body)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("perfbot web ended with %v", err)
	}
}
