package parse

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/perfbot/perfbot/bench"
)

// The tests in this file run the real tools, when installed, and parse
// what they print now, so that the parsers keep up with the versions CI
// installs (Debian: linux-perf, redis-server, redis-tools, postgresql,
// hyperfine, libbenchmark-dev, g++).

// tool returns the path of a binary or skips the test.
func tool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s is not installed (CI installs it): %v", name, err)
	}
	return p
}

// run runs a command and returns its combined output.
func run(t *testing.T, ctx context.Context, name string, args ...string) []byte {
	t.Helper()
	cmd := exec.CommandContext(ctx, name, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out.String())
	}
	return out.Bytes()
}

// parseLive detects and parses out, requiring the given format.
func parseLive(t *testing.T, out []byte, wantFormat string) []*bench.Result {
	t.Helper()
	head := out
	if len(head) > sniffSize {
		head = head[:sniffSize]
	}
	p, err := Detect(head)
	if err != nil || p.Name() != wantFormat {
		t.Fatalf("Detect = %v, %v; want %s for:\n%s", p, err, wantFormat, out)
	}
	rs, err := Bytes(context.Background(), out, "live", wantFormat)
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, out)
	}
	for _, r := range rs {
		if err := r.Validate(); err != nil {
			t.Errorf("%s: %v", r.Source, err)
		}
	}
	return rs
}

// pick returns the result matching benchmark, metric and unit, or fails.
func pick(t *testing.T, rs []*bench.Result, benchName, metric, unit string, out []byte) *bench.Result {
	t.Helper()
	for _, r := range rs {
		if r.Benchmark == benchName && r.Metric == metric && r.Unit == unit {
			return r
		}
	}
	t.Fatalf("no %q %q %q among %d results of:\n%s", benchName, metric, unit, len(rs), out)
	return nil
}

func value(r *bench.Result) float64 {
	if len(r.Samples) > 0 {
		return r.Samples[0]
	}
	return r.Summary.Mean
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func TestLivePerfStat(t *testing.T) {
	perf := tool(t, "perf")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, perf, "stat", "-e", "task-clock", "true").CombinedOutput(); err != nil {
		t.Skipf("perf stat cannot count here (perf_event_paranoid?): %v\n%s", err, out)
	}
	events := "task-clock,context-switches,cycles,instructions"
	tests := []struct {
		name   string
		args   []string
		format string
		runs   int
	}{
		{"human", []string{"stat", "-e", events, "true"}, "perf-stat", 0},
		{"repeat", []string{"stat", "-r", "3", "-e", events, "true"}, "perf-stat", 3},
		{"csv", []string{"stat", "-x,", "-e", events, "true"}, "perf-stat-csv", 0},
		{"csv repeat", []string{"stat", "-x,", "-r", "3", "-e", events, "true"}, "perf-stat-csv", 3},
		{"semicolon interval", []string{"stat", "-x;", "-I", "100", "-e", events, "sleep", "0.25"}, "perf-stat-csv", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := run(t, ctx, perf, tt.args...)
			rs := parseLive(t, out, tt.format)
			tc := pick(t, rs, "task-clock", "", "msec", out)
			if tt.runs > 0 {
				if tc.Summary == nil || tc.Summary.N != tt.runs && tt.format == "perf-stat" || tc.Summary.Confidence != 0.6827 {
					t.Errorf("task-clock with -r %d: summary %+v, want N=%d and a +- error", tt.runs, tc.Summary, tt.runs)
				}
			} else if len(tc.Samples) != 1 {
				t.Errorf("task-clock: samples %v, want one", tc.Samples)
			}
			if v := value(tc); v <= 0 {
				t.Errorf("task-clock = %v msec, want > 0", v)
			}
			cs := pick(t, rs, "context-switches", "", "count", out)
			if cs.Better != bench.LowerIsBetter {
				t.Errorf("context-switches better = %v", cs.Better)
			}
		})
	}
}

func TestLiveRedisBenchmark(t *testing.T) {
	server := tool(t, "redis-server")
	rb := tool(t, "redis-benchmark")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	port := freePort(t)
	dir := t.TempDir()
	srv := exec.CommandContext(ctx, server, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir)
	var log bytes.Buffer
	srv.Stdout, srv.Stderr = &log, &log
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { srv.Process.Kill(); srv.Wait() }()
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	for i := 0; ; i++ {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			break
		}
		if i > 100 {
			t.Fatalf("redis-server did not start: %v\n%s", err, log.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	base := []string{"-h", "127.0.0.1", "-p", strconv.Itoa(port), "-n", "2000", "-c", "10", "-t", "set,get"}
	tests := []struct {
		name  string
		extra []string
		p50   bool
	}{
		{"default", nil, true},
		{"quiet", []string{"-q"}, true},
		{"csv", []string{"--csv"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := run(t, ctx, rb, append(append([]string{}, base...), tt.extra...)...)
			rs := parseLive(t, out, "redis-benchmark")
			set := pick(t, rs, "SET", "", "QPS", out)
			if value(set) <= 0 || set.Better != bench.HigherIsBetter {
				t.Errorf("SET = %v QPS (better %v)", value(set), set.Better)
			}
			if tt.p50 {
				if p := pick(t, rs, "GET", "p50", "ms", out); value(p) <= 0 || p.Better != bench.LowerIsBetter {
					t.Errorf("GET p50 = %v ms (better %v)", value(p), p.Better)
				}
			}
		})
	}
}

func TestLivePGBench(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a PostgreSQL server; skipped with -short")
	}
	pgbench := tool(t, "pgbench")
	initdb, err := exec.LookPath("initdb")
	if err != nil {
		m, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
		if len(m) == 0 {
			t.Skip("initdb is not installed (CI installs postgresql)")
		}
		initdb = m[len(m)-1]
	}
	pgctl := filepath.Join(filepath.Dir(initdb), "pg_ctl")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	dir, err := os.MkdirTemp("", "perfbot-pgbench-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	// PostgreSQL refuses to run as root: run the server as nobody.
	var asUser []string
	user := os.Getenv("USER")
	if os.Geteuid() == 0 {
		setpriv := tool(t, "setpriv")
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(dir, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		asUser = []string{setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", "--"}
		user = "nobody"
	}
	sh := func(args ...string) []byte {
		all := append(append([]string{}, asUser...), args...)
		return run(t, ctx, all[0], all[1:]...)
	}
	data := filepath.Join(dir, "data")
	sh(initdb, "-D", data, "-A", "trust", "-U", user)
	port := strconv.Itoa(freePort(t))
	sh(pgctl, "-D", data, "-l", filepath.Join(dir, "log"), "-w", "-o", "-p "+port+" -k "+dir+" -c listen_addresses=", "start")
	defer exec.Command(asUser0(asUser, pgctl), asUserArgs(asUser, pgctl, "-D", data, "-m", "immediate", "stop")...).Run()

	conn := []string{"-h", dir, "-p", port, "-U", user}
	run(t, ctx, pgbench, append(append([]string{"-i", "-q", "-s", "1"}, conn...), "postgres")...)
	out := run(t, ctx, pgbench, append(append([]string{"-T", "2", "-P", "1", "-c", "2", "-j", "2"}, conn...), "postgres")...)
	rs := parseLive(t, out, "pgbench")
	tps := pick(t, rs, "TPC-B (sort of)", "", "tps", out)
	if value(tps) <= 0 || tps.Params.String() != "scale=1/clients=2/threads=2" {
		t.Errorf("tps = %v, params %s", value(tps), tps.Params)
	}
	pick(t, rs, "TPC-B (sort of)", "AverageLatency", "ms", out)
}

func asUser0(asUser []string, cmd string) string {
	if len(asUser) > 0 {
		return asUser[0]
	}
	return cmd
}

func asUserArgs(asUser []string, cmd string, args ...string) []string {
	if len(asUser) > 0 {
		return append(append(append([]string{}, asUser[1:]...), cmd), args...)
	}
	return args
}

func TestLiveHyperfine(t *testing.T) {
	hf := tool(t, "hyperfine")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	file := filepath.Join(t.TempDir(), "hf.json")
	run(t, ctx, hf, "--runs", "3", "--style", "none", "--export-json", file, "-P", "n", "1", "2", "sleep 0.00{n}")
	out, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	rs := parseLive(t, out, "hyperfine")
	if len(rs) != 2 {
		t.Fatalf("%d results, want 2:\n%s", len(rs), out)
	}
	r := pick(t, rs, "sleep 0.002", "", "s", out)
	if len(r.Samples) != 3 || r.Params.String() != "n=2" {
		t.Errorf("samples %v params %s, want 3 samples and n=2", r.Samples, r.Params)
	}
}

func TestLiveGBench(t *testing.T) {
	gxx := tool(t, "g++")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	src := filepath.Join(dir, "b.cc")
	os.WriteFile(src, []byte(`#include <benchmark/benchmark.h>
#include <cstring>
static void BM_copy(benchmark::State& state) {
  char* a = new char[state.range(0)]; char* b = new char[state.range(0)];
  memset(a, 'x', state.range(0));
  for (auto _ : state) { memcpy(b, a, state.range(0)); benchmark::ClobberMemory(); }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(state.range(0)));
  delete[] a; delete[] b;
}
BENCHMARK(BM_copy)->Arg(64)->Arg(4096);
BENCHMARK_MAIN();
`), 0o644)
	bin := filepath.Join(dir, "b")
	cmd := exec.CommandContext(ctx, gxx, "-O1", src, "-o", bin, "-lbenchmark", "-lpthread")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("cannot build a Google Benchmark program (CI installs libbenchmark-dev): %v\n%s", err, out)
	}
	common := []string{"--benchmark_min_time=0.01", "--benchmark_repetitions=2"}
	t.Run("console", func(t *testing.T) {
		out := run(t, ctx, bin, common...)
		rs := parseLive(t, out, "gbench")
		r := pick(t, rs, "BM_copy", "cpu_time", "ns", out)
		if r.Params.String() != "arg0=64" || value(r) <= 0 {
			t.Errorf("BM_copy cpu_time %v params %s", value(r), r.Params)
		}
		pick(t, rs, "BM_copy", "bytes_per_second", "B/s", out)
		if n := len(rs); n != 2*2*3 {
			t.Errorf("%d results, want 12 (2 args x 2 repetitions x real, cpu, bytes; aggregates skipped)", n)
		}
	})
	t.Run("json", func(t *testing.T) {
		out := run(t, ctx, bin, append(common, "--benchmark_format=json")...)
		rs := parseLive(t, out, "gbench-json")
		r := pick(t, rs, "BM_copy", "real_time", "ns", out)
		if r.Params.String() != "arg0=64" || value(r) <= 0 {
			t.Errorf("BM_copy real_time %v params %s", value(r), r.Params)
		}
		if n := len(rs); n != 2*2*3 {
			t.Errorf("%d results, want 12", n)
		}
	})
}
