package web

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perfbot/perfbot/store"
)

// TestWarm checks that Warm's pass reads the latest finished runs into
// the cache laid out, that the pages then answer from it,
// and that a second pass reads nothing again.
func TestWarm(t *testing.T) {
	st, ids := filled(t)
	ws, err := New(st, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	warmed := map[int64]time.Time{}
	ws.warmLatest(ctx, warmed)
	read := map[int64]*readRun{}
	for _, id := range ids {
		e, ok := ws.runs[id]
		if !ok {
			t.Fatalf("run %d was not read ahead", id)
		}
		read[id] = e
		if e.doc == nil || !e.listed || len(e.names) == 0 {
			t.Errorf("run %d: laid out %v, %d charts named; want laid out and its charts named", id, e.doc != nil, len(e.names))
		}
	}
	ws.warmLatest(ctx, warmed)
	for _, id := range ids {
		if ws.runs[id] != read[id] {
			t.Errorf("run %d was read again by the second pass", id)
		}
	}
	srv := httptest.NewServer(ws.Handler())
	defer srv.Close()
	get(t, srv, fmt.Sprintf("/runs/%d", ids[0]), 200)
	get(t, srv, fmt.Sprintf("/runs/%d/charts/%s", ids[0], read[ids[0]].names[0]), 200)
	if e := ws.runs[ids[0]]; e != read[ids[0]] || len(e.drawn) != 1 {
		t.Errorf("the run page read run %d again, or its chart was not kept drawn", ids[0])
	}
}

// TestRunReadOnce checks that a request for a finished run being read
// (by Warm, or another request) waits for that reading and shares it.
func TestRunReadOnce(t *testing.T) {
	st, ids := filled(t)
	ws, err := New(st, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	run, err := st.GetRun(ctx, ids[1])
	if err != nil {
		t.Fatal(err)
	}
	// Another reading of the run is under way.
	done := make(chan struct{})
	ws.mu.Lock()
	ws.reading[run.ID] = done
	ws.mu.Unlock()
	got := make(chan *readRun, 1)
	go func() {
		e, err := ws.comparisonOf(ctx, run)
		if err != nil {
			t.Error(err)
		}
		got <- e
	}()
	select {
	case <-got:
		t.Fatal("the request read the run itself instead of waiting for the reading under way")
	case <-time.After(200 * time.Millisecond):
	}
	theirs, err := ws.readComparison(ctx, run)
	if err != nil {
		t.Fatal(err)
	}
	ws.mu.Lock()
	ws.runs[run.ID] = theirs
	delete(ws.reading, run.ID)
	close(done)
	ws.mu.Unlock()
	if e := <-got; e != theirs {
		t.Errorf("the request did not share the reading it waited for")
	}
}

// TestRunCacheDropsLeastRecentlyUsed checks that a run read again stays
// cached while runs not read since are dropped.
func TestRunCacheDropsLeastRecentlyUsed(t *testing.T) {
	st, ids := filled(t)
	ws, err := New(st, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	finished := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for i := range runCacheSize {
		id := int64(1000 + i)
		ws.runs[id] = &readRun{finished: finished}
		ws.runOrder = append(ws.runOrder, id)
	}
	// The oldest is read again, then a new run is read.
	if _, err := ws.comparisonOf(ctx, &store.Run{ID: 1000, Status: store.StatusDone, Finished: finished}); err != nil {
		t.Fatal(err)
	}
	run, err := st.GetRun(ctx, ids[0])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ws.comparisonOf(ctx, run); err != nil {
		t.Fatal(err)
	}
	_, kept := ws.runs[1000]
	_, stale := ws.runs[1001]
	if !kept || stale || len(ws.runs) != runCacheSize {
		t.Errorf("run read again kept: %v, run not read since kept: %v, %d runs cached; want true, false, %d",
			kept, stale, len(ws.runs), runCacheSize)
	}
}

// TestChartsDrawnOnRequest checks that a run page names its charts
// without drawing them, and that each is drawn, PNG or SVG, when asked
// for, also by requests arriving together.
func TestChartsDrawnOnRequest(t *testing.T) {
	st, ids := filled(t)
	ws, err := New(st, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(ws.Handler())
	defer srv.Close()
	id := ids[2]
	_, body := get(t, srv, fmt.Sprintf("/runs/%d", id), 200)
	e := ws.runs[id]
	if e == nil {
		t.Fatalf("run %d was not kept read after its page", id)
	}
	if len(e.names) == 0 || len(e.drawn) != 0 {
		t.Fatalf("after the page: %d charts named, %d drawn; want some named, none drawn", len(e.names), len(e.drawn))
	}
	var names []string
	for _, n := range e.names {
		if !strings.Contains(body, fmt.Sprintf(`<img src="/runs/%d/charts/%s"`, id, n)) {
			t.Errorf("the page does not show chart %s", n)
		}
		names = append(names, n, strings.TrimSuffix(n, ".png")+".svg")
	}
	var wg sync.WaitGroup
	for _, n := range names {
		wg.Go(func() {
			resp, err := srv.Client().Get(fmt.Sprintf("%s/runs/%d/charts/%s", srv.URL, id, n))
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			want := "image/png"
			if strings.HasSuffix(n, ".svg") {
				want = "image/svg+xml"
			}
			if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != want {
				t.Errorf("%s: %s, %s; want 200, %s", n, resp.Status, resp.Header.Get("Content-Type"), want)
			}
		})
	}
	wg.Wait()
	e.mu.Lock()
	drawn := len(e.drawn)
	e.mu.Unlock()
	if drawn != len(names) {
		t.Errorf("%d charts kept drawn, want %d", drawn, len(names))
	}
	get(t, srv, fmt.Sprintf("/runs/%d/charts/perfbot-chart-99.png", id), 404)
}
