package examples

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestYCSBRelease runs examples/ycsb-release.yaml: go-ycsb workloads A to F
// on two Badger releases, with throughput and latency percentiles for each
// workload on both sides, and a plain-text report for the mail.
func TestYCSBRelease(t *testing.T) {
	need(t, "go", "golang")
	// --no-confirm: the test reads which rows both sides measured, not
	// verdicts; confirming a row called worse would build go-ycsb on both
	// sides and run every workload again.
	r, out := runExample(t, "ycsb-release", "--no-confirm")
	if r.Base != "badger-v1.5.3" || len(r.Candidates) != 1 || r.Candidates[0] != "badger-v1.5.4" {
		t.Fatalf("variants %s vs %v, want badger-v1.5.4 vs badger-v1.5.3", r.Base, r.Candidates)
	}
	throughput := map[string]bool{}
	percentiles := map[string]bool{}
	for _, x := range r.Rows {
		if x.Base == nil || len(x.Candidates) != 1 || x.Candidates[0].Center == 0 {
			continue
		}
		w := x.Params["workload"]
		switch {
		case x.Benchmark == "TOTAL" && x.Metric == "Throughput":
			throughput[w] = true
			logRows(t, []row{x}, "workload")
		case x.Benchmark == "TOTAL" && strings.HasPrefix(x.Metric, "p99"):
			percentiles[w] = true
		}
	}
	for _, w := range []string{"a", "b", "c", "d", "e", "f"} {
		if !throughput[w] {
			t.Errorf("workload %s: no TOTAL throughput on both sides", w)
		}
		if !percentiles[w] {
			t.Errorf("workload %s: no TOTAL p99 latency on both sides", w)
		}
	}
	text, err := os.ReadFile(filepath.Join(out, "report.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(text), "badger-v1.5.4") {
		t.Errorf("report.txt does not name the candidate:\n%s", text)
	}
}
