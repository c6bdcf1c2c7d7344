package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/internal/storetest"
	"github.com/perfbot/perfbot/store"
)

// TestPagesOverBulkStore runs the queries BenchmarkPages measures over a
// small store filled the same way, on SQLite and on PostgreSQL, and checks
// what they answer: 200 series at 10 commits (5 runs), every 50th series
// stepping up 20% at commit 5 (run 3) with a stored change point.
func TestPagesOverBulkStore(t *testing.T) {
	for _, driver := range []string{store.SQLite, store.Postgres} {
		t.Run(driver, func(t *testing.T) {
			st := scaleStore(t, driver)
			sh := storetest.Shape{Benchmarks: 200, Commits: 10, StepEvery: 50, StepAt: 5}
			ids, err := storetest.Fill(context.Background(), st, sh)
			if err != nil {
				t.Fatal(err)
			}
			if len(ids) != 5 {
				t.Fatalf("%d runs, want 5", len(ids))
			}
			ws, err := New(st, nil)
			if err != nil {
				t.Fatal(err)
			}
			ws.pageRows = 50
			srv := httptest.NewServer(ws.Handler())
			t.Cleanup(srv.Close)
			checkBulkPages(t, srv, ids, sh)
		})
	}
}

func checkBulkPages(t *testing.T, srv *httptest.Server, ids []int64, sh storetest.Shape) {
	tableRows := func(page string) int { return strings.Count(page, `<td><a href="/benchmarks?q=`) }
	step := ids[sh.StepAt/2]

	// The run with the change: 4 changed rows of 200, the rest folded.
	_, page := get(t, srv, fmt.Sprintf("/runs/%d", step), 200)
	if n := tableRows(page); n != 4 {
		t.Errorf("run page shows %d rows, want the 4 changed ones", n)
	}
	for _, want := range []string{"The 4 changed rows of 200", "196 unchanged rows are folded",
		fmt.Sprintf(`<a href="/runs/%d?rows=all#results">show all 200 rows</a>`, step)} {
		if !strings.Contains(page, want) {
			t.Errorf("run page lacks %q", want)
		}
	}
	_, page = get(t, srv, fmt.Sprintf("/runs/%d?rows=all&page=4", step), 200)
	if n := tableRows(page); n != 50 {
		t.Errorf("page 4 of all rows shows %d rows, want 50", n)
	}
	if !strings.Contains(page, "page 4 of 4") || !strings.Contains(page, `rel="prev"`) || strings.Contains(page, `rel="next"`) {
		t.Errorf("page 4 of 4 lacks its position or links")
	}
	get(t, srv, fmt.Sprintf("/runs/%d?rows=all&page=5", step), 404)
	get(t, srv, fmt.Sprintf("/runs/%d?rows=some", step), 400)
	get(t, srv, fmt.Sprintf("/runs/%d?page=0", step), 400)
	// A run without a change shows no table rows, and says so.
	_, page = get(t, srv, fmt.Sprintf("/runs/%d", ids[0]), 200)
	if n := tableRows(page); n != 0 || !strings.Contains(page, "The 0 changed rows of 200") {
		t.Errorf("a run without changes shows %d rows", n)
	}
	var run struct {
		Comparison struct {
			Comparisons []json.RawMessage `json:"comparisons"`
		} `json:"comparison"`
	}
	_, js := get(t, srv, fmt.Sprintf("/api/runs/%d", step), 200)
	if err := json.Unmarshal([]byte(js), &run); err != nil {
		t.Fatal(err)
	}
	if n := len(run.Comparison.Comparisons); n != sh.Benchmarks {
		t.Errorf("/api/runs/%d: %d rows, want all %d (the JSON is not folded)", step, n, sh.Benchmarks)
	}

	// Search: names starting Bench1 are Bench1 (series 10-19) and
	// Bench10-Bench19 (100-199); with size=3: series 13, 103, 113, ..., 193.
	var found []Series
	_, js = get(t, srv, "/api/benchmarks?q=bench1+size=3", 200)
	if err := json.Unmarshal([]byte(js), &found); err != nil {
		t.Fatal(err)
	}
	want := 0
	for i := range sh.Benchmarks {
		name, _, params := storetest.BulkSeries(i)
		if v, _ := params.Get("size"); strings.HasPrefix(strings.ToLower(name), "bench1") && strings.HasPrefix(v, "3") {
			want++
		}
	}
	if len(found) != want || want != 11 {
		t.Errorf("search found %d series, want %d (11)", len(found), want)
	}
	for _, s := range found {
		if s.Runs != len(ids) {
			t.Errorf("%s %s: %d runs, want %d", s.Benchmark, s.Params, s.Runs, len(ids))
		}
	}

	// A stepped series' history: 10 points on main, one change point
	// between commits 4 and 5.
	name, group, params := storetest.BulkSeries(50)
	history := seriesURL("", name, group, params, "ns/op", "", "main")
	var h History
	_, js = get(t, srv, "/api"+history, 200)
	if err := json.Unmarshal([]byte(js), &h); err != nil {
		t.Fatal(err)
	}
	if len(h.Points) != sh.Commits {
		t.Errorf("history has %d points, want %d", len(h.Points), sh.Commits)
	}
	if len(h.ChangePoints) != 1 || h.ChangePoints[0].Commit != storetest.BulkCommit(5) ||
		h.ChangePoints[0].CommitBefore != storetest.BulkCommit(4) || h.ChangePoints[0].RunURL != runURL(step) {
		t.Errorf("history's change points: %+v, want one at commit 5 measured by run %d", h.ChangePoints, step)
	}
	_, page = get(t, srv, history, 200)
	if n := strings.Count(page, "<circle "); n != sh.Commits {
		t.Errorf("history chart shows %d points, want %d", n, sh.Commits)
	}
	if n := strings.Count(page, `<g class="change-point">`); n != 1 {
		t.Errorf("history chart marks %d change points, want 1", n)
	}
	// A series without a step has none.
	name, group, params = storetest.BulkSeries(51)
	_, page = get(t, srv, seriesURL("", name, group, params, "ns/op", "", "main"), 200)
	if strings.Contains(page, `class="change-point"`) {
		t.Errorf("%s %s is marked with a change point it does not have", name, params)
	}

	// The change points: one per stepped series.
	var cps []map[string]any
	_, js = get(t, srv, "/api/changes", 200)
	if err := json.Unmarshal([]byte(js), &cps); err != nil {
		t.Fatal(err)
	}
	if len(cps) != sh.Benchmarks/sh.StepEvery {
		t.Errorf("/api/changes has %d change points, want %d", len(cps), sh.Benchmarks/sh.StepEvery)
	}
	_, page = get(t, srv, "/changes", 200)
	if !strings.Contains(page, storetest.BulkCommit(5)[:12]) {
		t.Errorf("/changes does not name commit 5")
	}

	// The home page lists the run's 4 regressions.
	var home Home
	_, js = get(t, srv, "/api/home", 200)
	if err := json.Unmarshal([]byte(js), &home); err != nil {
		t.Fatal(err)
	}
	if len(home.Regressions) != 4 || len(home.Runs) != len(ids) || len(home.Branches) != 1 || home.Branches[0].Runs != len(ids) {
		t.Errorf("home: %d regressions (want 4), %d runs (want %d), branches %+v", len(home.Regressions),
			len(home.Runs), len(ids), home.Branches)
	}
	get(t, srv, "/", 200)
}
