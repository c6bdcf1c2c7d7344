package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFlameDiff draws a differential flame graph of two folded profiles
// and prints the functions whose share moved.
func TestFlameDiff(t *testing.T) {
	dir := t.TempDir()
	base, cand := filepath.Join(dir, "a_0.98.0.folded"), filepath.Join(dir, "a_0.98.8.folded")
	os.WriteFile(base, []byte("RpcServer;HRegion.get;StoreScanner.next 600\nRpcServer;HRegion.get;BlockCache.getBlock 400\n"), 0o644)
	os.WriteFile(cand, []byte("RpcServer;HRegion.get;StoreScanner.next 300\nRpcServer;HRegion.get;BlockCache.getBlock 400\n"), 0o644)
	svg := filepath.Join(dir, "a_diff.svg")
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"flame", "--out", svg, base, cand}, &stdout, &stderr); err != nil {
		t.Fatalf("flame: %v\n%s", err, stderr.String())
	}
	data, err := os.ReadFile(svg)
	if err != nil || !bytes.Contains(data, []byte("a_0.98.8.folded against a_0.98.0.folded")) || !bytes.Contains(data, []byte("StoreScanner.next: total 60.00% → 42.86%")) {
		t.Errorf("svg (%v):\n%.600s", err, data)
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[1], "StoreScanner.next") || !strings.Contains(lines[1], "-17.14 pts") {
		t.Errorf("table:\n%s", stdout.String())
	}

	// One profile: a plain flame graph on stdout.
	stdout.Reset()
	if err := run(context.Background(), []string{"flame", base}, &stdout, &stderr); err != nil || !strings.HasPrefix(stdout.String(), "<?xml") {
		t.Errorf("single profile: %v\n%.200s", err, stdout.String())
	}
	// Bad input names the file and line.
	bad := filepath.Join(dir, "bad.folded")
	os.WriteFile(bad, []byte("a;b 1\nnot a stack\n"), 0o644)
	err = run(context.Background(), []string{"flame", bad}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "bad.folded:2:") {
		t.Errorf("bad input: err = %v", err)
	}
	if err := run(context.Background(), []string{"flame"}, &stdout, &stderr); err == nil {
		t.Error("no profile: no error")
	}
}

// TestCompareCPUProfile: --cpuprofile with --out draws each side's flame
// graph and the differential one; the patch halves Work's loop, so Work's
// share of the CPU time falls against Other's.
func TestCompareCPUProfile(t *testing.T) {
	_, out := compareHalvedWork(t, "--count", "2", "--cpuprofile")
	for _, f := range []string{"flame-go-work-base.svg", "flame-go-work-patch.svg", "flame-go-work-patch-vs-base.svg", "flame-go-work-patch-vs-base.txt"} {
		if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
			entries, _ := os.ReadDir(out)
			t.Fatalf("%s missing (%v); out has %v", f, err, entries)
		}
	}
	table, _ := os.ReadFile(filepath.Join(out, "flame-go-work-patch-vs-base.txt"))
	if !strings.Contains(string(table), "work.Work") {
		t.Errorf("changes table lacks work.Work:\n%s", table)
	}
}
