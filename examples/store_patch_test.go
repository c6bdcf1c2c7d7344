package examples

import (
	"sort"
	"strconv"
	"testing"
)

// TestStorePatch runs examples/store-patch.yaml: the index lookup beats the
// sequential scan at every task count, and by more the more tasks there are.
func TestStorePatch(t *testing.T) {
	// --no-confirm: the test reads better verdicts, which a confirmation
	// rerun (of rows called worse) cannot change. It is about wall time,
	// which auto could replace by instruction counts on a loaded host.
	r, _ := runExample(t, "store-patch", "--no-confirm", "--instrument", "walltime")
	if r.Base != "scan" || len(r.Candidates) != 1 || r.Candidates[0] != "index" {
		t.Fatalf("variants %s vs %v, want index vs scan", r.Base, r.Candidates)
	}
	rs := rows(r, "JobKeys", "ns/op", "")
	if len(rs) == 0 {
		rs = rows(r, "JobKeys", "sec/op", "")
	}
	logRows(t, rs, "numTasks")
	type point struct {
		n       int
		speedup float64
	}
	var pts []point
	for _, x := range rs {
		n, err := strconv.Atoi(x.Params["numTasks"])
		if err != nil || x.Base == nil || len(x.Candidates) != 1 {
			t.Fatalf("row %+v: want numTasks and both sides", x)
		}
		c := x.Candidates[0]
		if c.Verdict != "better" {
			t.Errorf("numTasks=%d: index is %s than the scan (ratio %.3f, p=%.3g), want better", n, c.Verdict, c.Ratio, c.P)
		}
		pts = append(pts, point{n, x.Base.Center / c.Center})
	}
	if len(pts) != 3 {
		t.Fatalf("%d time rows, want numTasks 10000, 50000 and 100000", len(pts))
	}
	sort.Slice(pts, func(i, j int) bool { return pts[i].n < pts[j].n })
	for _, p := range pts {
		t.Logf("numTasks=%d: index %.0fx faster than the scan", p.n, p.speedup)
	}
	// The scan's cost grows with the task count and the index's does not:
	// ten times the tasks gives a far larger speedup. Neighbouring counts
	// are not compared, as one slow index round can reorder them.
	if lo, hi := pts[0], pts[len(pts)-1]; hi.speedup <= 2*lo.speedup {
		t.Errorf("speedup at numTasks=%d is %.1fx, not more than twice the %.1fx at %d: the scan's cost should grow with the task count and the index's should not",
			hi.n, hi.speedup, lo.speedup, lo.n)
	}
}
