package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/perfbot/perfbot/digest"
	"github.com/perfbot/perfbot/store"
)

// digestServer serves the filled store's pages with its digests, built
// as perfbot web builds them.
func digestServer(t *testing.T) (*httptest.Server, []int64) {
	t.Helper()
	st, runs := filled(t)
	cps, err := st.ChangePoints(context.Background(), store.ChangePointFilter{})
	if err != nil || len(cps) != 0 {
		t.Fatalf("change points: %v, %d", err, len(cps))
	}
	cp := store.ChangePoint{Benchmark: "<script>alert(1)</script>", Unit: "ns/op", Commit: "0123456789abcdef0123",
		CommitBefore: "fedcba9876543210fedc", RunID: runs[0], NBefore: 5, NAfter: 5, Before: 100, After: 200, DeltaPct: 100, P: 0.001}
	key, err := cp.Key()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.SaveChangePoints(context.Background(), "/r@main", key, []store.ChangePoint{cp}); err != nil {
		t.Fatal(err)
	}
	// A change point of a benchmark the runs measured: its chart has
	// points.
	vs, err := st.RunVerdicts(context.Background(), runs[1])
	if err != nil || len(vs) == 0 {
		t.Fatalf("verdicts: %v, %d", err, len(vs))
	}
	k := vs[0].Key
	real := store.ChangePoint{Benchmark: k.Benchmark, Group: k.Group, Unit: k.Unit, Metric: k.Metric, Commit: "bbbbbbbbbbbb",
		CommitBefore: "aaaaaaaaaaaa", RunID: runs[1], NBefore: 1, NAfter: 1, Before: 100, After: 90, DeltaPct: -10, P: 0.01}
	if err := json.Unmarshal([]byte(k.Params), &real.Params); err != nil {
		t.Fatal(err)
	}
	if _, err := st.SaveChangePoints(context.Background(), "/r@main", k, []store.ChangePoint{real}); err != nil {
		t.Fatal(err)
	}
	ws, err := New(st, nil)
	if err != nil {
		t.Fatal(err)
	}
	ws.SetDigests(func(ctx context.Context, period string, end time.Time) (string, error) {
		if period != "weekly" {
			return "", fmt.Errorf("%s: %w", period, ErrUnknownDigest)
		}
		d, err := digest.Build(ctx, st, end.Add(-7*24*time.Hour), end, digest.Options{Title: period, Branches: []string{"main"}})
		if err != nil {
			return "", err
		}
		return d.HTMLWith("")
	})
	srv := httptest.NewServer(ws.Handler())
	t.Cleanup(srv.Close)
	return srv, runs
}

func TestDigestPage(t *testing.T) {
	srv, _ := digestServer(t)
	end := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	resp, page := get(t, srv, "/digests/weekly/"+end, 200)
	for _, want := range []string{"<title>perfbot weekly</title>", "Patches and pull requests", "Change points found",
		"&lt;script&gt;alert(1)&lt;/script&gt;", "<svg"} {
		if !strings.Contains(page, want) {
			t.Errorf("the digest page lacks %q:\n%s", want, page)
		}
	}
	if strings.Contains(page, "<script>alert") {
		t.Error("a benchmark name became markup")
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "style-src 'unsafe-inline'") || strings.Contains(csp, "script-src") {
		t.Errorf("digest CSP %q", csp)
	}
	get(t, srv, "/digests/weekly", 200)
	get(t, srv, "/digests/hourly/"+end, 404)
	get(t, srv, "/digests/weekly/yesterday", 400)
	plain := server(t, storeOf(t))
	get(t, plain, "/digests/weekly", 404)
}

func storeOf(t *testing.T) *store.Store {
	st, _ := filled(t)
	return st
}

func TestBrowserDigestPage(t *testing.T) {
	srv, _ := digestServer(t)
	url := srv.URL + "/digests/weekly/" + time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	dom := string(chromium(t, url, "--dump-dom"))
	for _, want := range []string{"perfbot weekly", "regressions", "Tracked branches", "<svg"} {
		if !strings.Contains(dom, want) {
			t.Errorf("the browser's DOM of %s lacks %s", url, want)
		}
	}
	screenshot(t, url, "digest-weekly", 900, 1400)
}
