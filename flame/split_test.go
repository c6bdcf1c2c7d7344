package flame

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// twoBenchmarks is a Go package with two benchmarks that spend their time
// in different functions; BenchmarkSort runs in sub-benchmarks.
const twoBenchmarks = `package two

import (
	"sort"
	"testing"
)

var sink uint64

func spin(n int) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < n; i++ {
		h ^= uint64(i)
		h *= 1099511628211
	}
	return h
}

func sortWork(n int) {
	s := make([]int, n)
	for i := range s {
		s[i] = (i * 7919) % n
	}
	sort.Ints(s)
}

func BenchmarkSpin(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sink += spin(200000)
	}
}

func BenchmarkSort(b *testing.B) {
	for _, n := range []int{1000, 4000} {
		b.Run("", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				sortWork(n)
			}
		})
	}
}
`

// TestSplitBenchmarksRealProfile profiles a real package's two benchmarks
// with go test -cpuprofile and splits the profile: each benchmark gets
// its own stacks and sample count, and nothing is lost or counted twice.
// The benchmarks run a fixed number of times, so their CPU samples do not
// depend on the load of the machine.
func TestSplitBenchmarksRealProfile(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH")
	}
	dir := t.TempDir()
	for name, text := range map[string]string{"go.mod": "module example.org/two\n\ngo 1.22\n", "two_test.go": twoBenchmarks} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	prof := filepath.Join(dir, "cpu.pprof")
	cmd := exec.Command("go", "test", "-run", "^$", "-bench", ".", "-benchtime", "1000x", "-cpuprofile", prof)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go test: %v\n%s", err, out)
	}
	p, err := ReadFile(prof)
	if err != nil {
		t.Fatal(err)
	}
	parts, names := p.SplitBenchmarks()
	if strings.Join(names, ",") != "BenchmarkSort,BenchmarkSpin" {
		t.Fatalf("benchmarks = %q, want BenchmarkSort and BenchmarkSpin", names)
	}
	var samples int64
	var total float64
	for _, q := range parts {
		samples += q.Samples
		total += q.Total
	}
	if samples != p.Samples || total != p.Total {
		t.Errorf("parts hold %d samples, %g total; the profile %d, %g", samples, total, p.Samples, p.Total)
	}
	for _, tc := range []struct{ bench, has, lacks string }{
		{"BenchmarkSpin", "two.spin", "two.sortWork"},
		{"BenchmarkSort", "two.sortWork", "two.spin"},
	} {
		q := parts[tc.bench]
		if q.Samples < 5 {
			t.Errorf("%s: only %d samples", tc.bench, q.Samples)
		}
		found := false
		for stack := range q.Stacks {
			found = found || strings.Contains(stack, tc.has)
			if strings.Contains(stack, tc.lacks) {
				t.Errorf("%s holds a stack of the other benchmark: %s", tc.bench, stack)
			}
		}
		if !found {
			t.Errorf("%s has no stack through %s", tc.bench, tc.has)
		}
	}
}

func TestBenchmarkName(t *testing.T) {
	for in, want := range map[string]string{
		"example.org/x/two.BenchmarkSort.func1":   "BenchmarkSort",
		"example.org/x/two.BenchmarkSort.func1.2": "BenchmarkSort",
		"two.BenchmarkSpin":                       "BenchmarkSpin",
		"a/b.BenchmarkGen[...]":                   "BenchmarkGen",
		"0x4f3a2":                                 "0x4f3a2",
	} {
		if got := benchmarkName(in); got != want {
			t.Errorf("benchmarkName(%q) = %q, want %q", in, got, want)
		}
	}
	if got := benchmarkOf("runtime.goexit;runtime.gcBgMarkWorker"); got != Other {
		t.Errorf("a runtime stack belongs to %q", got)
	}
	if got := benchmarkOf("testing.(*B).runN;p.BenchmarkA;testing.(*B).Run;testing.(*B).runN;p.BenchmarkA.func1;p.work"); got != "BenchmarkA" {
		t.Errorf("a sub-benchmark's stack belongs to %q", got)
	}
	// runN calls runtime.GC before each run: that names no benchmark.
	if got := benchmarkOf("testing.(*B).run1.func1;testing.(*B).runN;runtime.GC;runtime.gcStart"); got != Other {
		t.Errorf("runN's own garbage collection belongs to %q", got)
	}
}
