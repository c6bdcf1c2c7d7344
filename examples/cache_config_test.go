package examples

import (
	"strings"
	"testing"
)

// TestCacheConfig runs examples/cache-config.yaml: with appendfsync always
// every write waits for an fsync, so SET loses to appendonly no.
func TestCacheConfig(t *testing.T) {
	need(t, "redis-server", "redis-server")
	need(t, "redis-benchmark", "redis-tools")
	need(t, "redis-cli", "redis-tools")
	r, _ := runExample(t, "cache-config")
	if r.Base != "appendonly-no" || len(r.Candidates) != 1 || r.Candidates[0] != "fsync-always" {
		t.Fatalf("variants %s vs %v, want fsync-always vs appendonly-no", r.Base, r.Candidates)
	}
	var set, get []row
	for _, x := range r.Rows {
		if x.Unit != "QPS" {
			continue
		}
		switch strings.ToUpper(x.Benchmark) {
		case "SET":
			set = append(set, x)
		case "GET":
			get = append(get, x)
		}
	}
	logRows(t, append(set, get...), "clients")
	if len(set) != 1 || len(get) != 1 {
		t.Fatalf("%d SET and %d GET QPS rows, want one each", len(set), len(get))
	}
	if c := set[0].Candidates[0]; c.Verdict != "worse" {
		t.Errorf("SET under appendfsync always is %s (ratio %.2f, p=%.3g), want worse than appendonly no", c.Verdict, c.Ratio, c.P)
	}
}
