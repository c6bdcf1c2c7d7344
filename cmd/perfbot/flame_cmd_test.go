package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/internal/pkgfile"
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

// TestCompareCPUProfile: --cpuprofile with --out draws, for each
// benchmark of the profiled package, each side's flame graph and the
// differential one, with the sample counts; the package's pprof profiles
// are kept once. The patch halves Work's loop: BenchmarkWork's table
// names work.Work, and no stack of BenchmarkOther's graph goes through it.
func TestCompareCPUProfile(t *testing.T) {
	// 2000 iterations a round: enough CPU samples for each benchmark alone.
	_, out := compareHalvedWork(t, "--count", "2", "--cpuprofile", "--benchtime", "2000x")
	// Files are named after the package's whole import path.
	flameStem := "flame-go-" + pkgfile.Name("example.org/work/work")
	var want []string
	for _, b := range []string{"BenchmarkWork", "BenchmarkOther"} {
		for _, f := range []string{"base.svg", "patch.svg", "base.folded", "patch.folded", "patch-vs-base.svg", "patch-vs-base.txt"} {
			want = append(want, flameStem+"-"+b+"-"+f)
		}
	}
	want = append(want, flameStem+"-base.pprof", flameStem+"-patch.pprof")
	for _, f := range want {
		if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
			entries, _ := os.ReadDir(out)
			t.Fatalf("%s missing (%v); out has %v", f, err, entries)
		}
	}
	for _, f := range []string{flameStem + "-patch-vs-base.svg", flameStem + "-base.svg"} {
		if _, err := os.Stat(filepath.Join(out, f)); err == nil {
			t.Errorf("%s mixes the package's benchmarks", f)
		}
	}
	table, _ := os.ReadFile(filepath.Join(out, flameStem+"-BenchmarkWork-patch-vs-base.txt"))
	if !strings.Contains(string(table), "work.Work") || !strings.Contains(string(table), "samples: base ") {
		t.Errorf("BenchmarkWork's table lacks work.Work or the sample counts:\n%s", table)
	}
	folded, _ := os.ReadFile(filepath.Join(out, flameStem+"-BenchmarkOther-patch.folded"))
	if !strings.Contains(string(folded), "work.BenchmarkOther") || strings.Contains(string(folded), "work.Work") {
		t.Errorf("BenchmarkOther's stacks:\n%s", folded)
	}
	svg, _ := os.ReadFile(filepath.Join(out, flameStem+"-BenchmarkOther-patch-vs-base.svg"))
	if !strings.Contains(string(svg), "example.org/work/work BenchmarkOther: patch against base") || !strings.Contains(string(svg), "samples: base ") {
		t.Errorf("BenchmarkOther's graph lacks its title or sample counts:\n%.800s", svg)
	}
}
