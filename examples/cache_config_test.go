package examples

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCacheConfig runs examples/cache-config.yaml: with appendfsync always
// every write waits for an fsync, so SET loses to appendonly no, by as much
// as an fsync costs against a round trip of one client. Whether fsync
// costs anything depends on the host (a tmpfs or a write-back cache makes
// it free), so the test measures it first and asserts the verdict only
// where the effect must show; elsewhere it says why and checks the rest.
func TestCacheConfig(t *testing.T) {
	need(t, "redis-server", "redis-server")
	need(t, "redis-benchmark", "redis-tools")
	need(t, "redis-cli", "redis-tools")
	if testing.Short() {
		t.Skip("example runs take minutes; skipped with -short")
	}
	fsync, plain := fsyncCost(t, t.TempDir(), 200)
	// One SET over loopback takes well under a millisecond even on a
	// loaded host; an fsync of a millisecond or more per write, and far
	// above a plain write, makes SET several times slower.
	costly := fsync >= time.Millisecond && fsync >= 20*plain
	t.Logf("this host: write+fsync %v, write %v per operation (fsync costly: %v)", fsync, plain, costly)

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
	for _, x := range append(set, get...) {
		if x.Base == nil || x.Base.N < 2 || len(x.Candidates) != 1 || x.Candidates[0].Center <= 0 || x.Candidates[0].Verdict == "" {
			t.Errorf("%s: want both configurations measured in several rounds, got %+v", x.Benchmark, x)
		}
	}
	c := set[0].Candidates[0]
	if !costly {
		t.Logf("fsync is cheap on this host (%v per write): SET under appendfsync always is %s (ratio %.2f, p=%.3g); not asserting worse", fsync, c.Verdict, c.Ratio, c.P)
		return
	}
	if c.Verdict != "worse" {
		t.Errorf("SET under appendfsync always is %s (ratio %.2f, p=%.3g), want worse than appendonly no: fsync costs %v per write here", c.Verdict, c.Ratio, c.P, fsync)
	}
}

// fsyncCost times n small appends to a file in dir, each followed by an
// fsync, and n plain appends, and returns the mean time of each.
func fsyncCost(t *testing.T, dir string, n int) (fsync, plain time.Duration) {
	t.Helper()
	measure := func(name string, sync bool) time.Duration {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		line := []byte("*3\r\n$3\r\nSET\r\n$16\r\nkey:000000000001\r\n$3\r\nxxx\r\n")
		start := time.Now()
		for range n {
			if _, err := f.Write(line); err != nil {
				t.Fatal(err)
			}
			if sync {
				if err := f.Sync(); err != nil {
					t.Fatal(err)
				}
			}
		}
		return time.Since(start) / time.Duration(n)
	}
	return measure("fsync.aof", true), measure("plain.aof", false)
}
