package web

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/store"
)

func TestChanges(t *testing.T) {
	st, runs := filled(t)
	srv := server(t, st)
	_, page := get(t, srv, "/changes", 200)
	if !strings.Contains(page, "No change points.") {
		t.Errorf("/changes without any:\n%s", page)
	}
	cp := store.ChangePoint{Benchmark: "<script>alert(1)</script>", Params: bench.Params{{Name: "n", Value: "1"}}, Unit: "ns/op",
		Commit: "0123456789abcdef0123", CommitBefore: "fedcba9876543210fedc", RunID: runs[0], NBefore: 5, NAfter: 5,
		Before: 100, BeforeLo: 99, BeforeHi: 101, After: 200, AfterLo: 198, AfterHi: 202, DeltaPct: 100, P: 0.001, MinChangePct: 5}
	key, err := cp.Key()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.SaveChangePoints(context.Background(), "/r@main", key, []store.ChangePoint{cp}); err != nil {
		t.Fatal(err)
	}
	_, page = get(t, srv, "/changes", 200)
	for _, want := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;", "fedcba987654..", `<a href="/runs/`, "&#43;100.0%", "/r@main"} {
		if !strings.Contains(page, want) {
			t.Errorf("/changes lacks %q:\n%s", want, page)
		}
	}
	if strings.Contains(page, "<script>alert") {
		t.Error("a benchmark name became markup")
	}
	_, js := get(t, srv, "/api/changes", 200)
	var got []map[string]any
	if err := json.Unmarshal([]byte(js), &got); err != nil || len(got) != 1 {
		t.Fatalf("/api/changes: %v\n%s", err, js)
	}
	for _, k := range []string{"benchmark", "params", "unit", "commit", "before", "after", "delta_pct"} {
		if _, ok := got[0][k]; !ok {
			t.Errorf("/api/changes lacks %q: %s", k, js)
		}
	}
	get(t, srv, "/api/changes?limit=x", 400)
}
