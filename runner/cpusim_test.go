package runner

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/internal/gitrepo"
	"github.com/perfbot/perfbot/parse"
	"github.com/perfbot/perfbot/sandbox"
)

func TestSimEnv(t *testing.T) {
	got := simEnv([]string{"PATH=/bin", "GOGC=100", "GODEBUG=madvdontneed=1", "GOMAXPROCS=8"})
	want := []string{"PATH=/bin", "GOMAXPROCS=1", "GOGC=off", "GODEBUG=madvdontneed=1,asyncpreemptoff=1,cpu.rdtscp=off"}
	if !slices.Equal(got, want) {
		t.Errorf("simEnv = %q, want %q", got, want)
	}
}

func TestExactPattern(t *testing.T) {
	if got := exactPattern("BenchmarkX/n=1.5"); got != `^BenchmarkX$/^n=1\.5$` {
		t.Errorf("exactPattern = %s", got)
	}
}

func TestRuntimeBackground(t *testing.T) {
	for _, fn := range []string{"runtime.sysmon", "runtime.nanotime1.abi0", "runtime.gcDrain", "runtime.(*gcWork).tryGet", "runtime.scanObject", "runtime.handoffp", "runtime.exitsyscall"} {
		if !runtimeBackground().MatchString(fn) {
			t.Errorf("%s is not background", fn)
		}
	}
	for _, fn := range []string{"runtime.mallocgc", "runtime.memmove", "example.org/work.Work", "runtime.mapassign_faststr"} {
		if runtimeBackground().MatchString(fn) {
			t.Errorf("%s is background", fn)
		}
	}
}

func TestReadSimFileRefusesSymlink(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "cachegrind.0.out")
	if err := os.Symlink("/etc/passwd", link); err != nil {
		t.Fatal(err)
	}
	if _, err := readSimFile(link); err == nil {
		t.Error("readSimFile followed a symbolic link")
	}
	fifo := filepath.Join(dir, "fifo")
	if err := exec.Command("mkfifo", fifo).Run(); err == nil {
		if _, err := readSimFile(fifo); err == nil {
			t.Error("readSimFile read a FIFO")
		}
	}
}

// TestCPUSimDoubledWork runs a Go benchmark under cachegrind for real: a
// patch that doubles a loop's work is worse by about 100% in instructions
// per op, an untouched benchmark is the same, and repeats agree closely
// whatever the load of the host.
func TestCPUSimDoubledWork(t *testing.T) {
	if msg := valgrindMissing(); msg != "" {
		t.Skip(msg)
	}
	r := gitrepo.New(t)
	r.Commit("work", gitrepo.WorkModule(20000, true))
	patch := r.Patch("work: double the loop", map[string]string{"work/work.go": gitrepo.WorkSource(40000)}, true)
	opts := testOptions(t, r.Dir, Candidate{Name: "patch", Patch: patch})
	opts.Suites = []config.Suite{{Name: "go", Preset: "go", Instrument: config.InstrumentCPUSim, Count: 2, MaxCount: 2}}
	opts.SimWork = 5 * time.Millisecond
	out, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Failures) > 0 {
		t.Fatalf("failures: %+v", out.Failures)
	}
	per := map[string][]float64{}
	for _, res := range out.Results {
		if res.Unit == "ns/op" {
			t.Errorf("cpu-sim measured wall time: %+v", res)
		}
		if res.Unit == "instructions/op" && res.Metric == bench.Simulated {
			per[res.Variant+" "+res.Benchmark] = append(per[res.Variant+" "+res.Benchmark], res.Samples...)
		}
	}
	for k, v := range per {
		if len(v) != 2 {
			t.Errorf("%s: %d rounds, want 2", k, len(v))
		}
		if spread := (slices.Max(v) - slices.Min(v)) / slices.Min(v); spread > 0.01 {
			t.Errorf("%s: repeats %v spread by %.2f%%", k, v, 100*spread)
		}
		t.Logf("%s: %v", k, v)
	}
	work := func(side string) float64 { return per[side+" Work"][0] }
	if ratio := work("patch") / work("base"); ratio < 1.8 || ratio > 2.2 {
		t.Errorf("doubled work counted %.3fx the instructions, want about 2x", ratio)
	}
	cmp, err := compare.Compare(out.Results, compare.Options{Base: "base"})
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range cmp.Rows {
		if row.Unit != "instructions/op" {
			continue
		}
		want := compare.Same
		if strings.HasPrefix(row.Benchmark, "Work") {
			want = compare.Worse
		}
		if got := row.Candidates[0].Verdict; got != want {
			t.Errorf("%s %s: verdict %s, want %s (%+v)", row.Benchmark, row.Unit, got, want, row.Candidates[0])
		}
	}
}

// TestCPUSimCommand runs a command suite's command under cachegrind for
// real, following the shell's children: a variant that loops three times
// as long counts more instructions, and repeats agree.
func TestCPUSimCommand(t *testing.T) {
	if msg := valgrindMissing(); msg != "" {
		t.Skip(msg)
	}
	r := gitrepo.New(t)
	r.Commit("empty", map[string]string{"README": "nothing to build\n"})
	suite := config.Suite{
		Name:       "loop",
		Command:    `i=0; while [ $i -lt $LOOP ]; do i=$((i+1)); done; /bin/true`,
		Instrument: config.InstrumentCPUSim,
		Count:      2,
		MaxCount:   2,
		Warmup:     new(int),
		Variants: config.Variants{
			{Name: "short", Env: map[string]string{"LOOP": "2000"}},
			{Name: "long", Env: map[string]string{"LOOP": "6000"}},
		},
	}
	out, err := Run(context.Background(), Options{Decide: decideBy(compare.Options{}),
		Repo: r.Dir, Base: "HEAD", Suites: []config.Suite{suite},
		CacheDir: t.TempDir(), Sandbox: sandbox.Local{}, SandboxName: "none", Env: os.Environ(),
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Failures) > 0 {
		t.Fatalf("failures: %+v", out.Failures)
	}
	got := map[string][]float64{}
	for _, res := range out.Results {
		if res.Metric != bench.Simulated || res.Benchmark != "loop" {
			t.Errorf("unexpected result %+v", res)
		}
		if res.Unit == "instructions" {
			got[res.Variant] = append(got[res.Variant], res.Samples...)
		}
	}
	if len(got["short"]) != 2 || len(got["long"]) != 2 {
		t.Fatalf("instruction counts %v, want 2 rounds a side", got)
	}
	if got["long"][0] < 1.5*got["short"][0] {
		t.Errorf("a loop three times as long counted %v instructions against %v", got["long"], got["short"])
	}
	cmp, err := compare.Compare(out.Results, compare.Options{Base: "short"})
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range cmp.Rows {
		if v := row.Candidates[0].Verdict; v != compare.Worse {
			t.Errorf("%s: verdict %s, want worse", row.Unit, v)
		}
	}
}

// logSource is a log that writes each record with writesPerRecord
// write(2) calls.
func logSource(writesPerRecord int) string {
	return `package logw

import "os"

// Append writes rec in ` + strconv.Itoa(writesPerRecord) + ` write calls.
func Append(f *os.File, rec []byte) error {
	n := len(rec) / ` + strconv.Itoa(writesPerRecord) + `
	for i := 0; i < ` + strconv.Itoa(writesPerRecord) + `; i++ {
		part := rec[i*n : (i+1)*n]
		if i == ` + strconv.Itoa(writesPerRecord-1) + ` {
			part = rec[i*n:]
		}
		if _, err := f.Write(part); err != nil {
			return err
		}
	}
	return nil
}
`
}

const logBench = `package logw

import (
	"os"
	"path/filepath"
	"testing"
)

func BenchmarkAppend(b *testing.B) {
	f, err := os.Create(filepath.Join(b.TempDir(), "log"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	rec := make([]byte, 64)
	s := 0
	for i := 0; i < b.N; i++ {
		// Some work of its own, so that even a few iterations count
		// more instructions than the run's start-up varies by.
		for j := 0; j < 20000; j++ {
			s += j ^ i
		}
		rec[0] = byte(s)
		if err := Append(f, rec); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSum(b *testing.B) {
	s := 0
	for i := 0; i < b.N; i++ {
		for j := 0; j < 1000; j++ {
			s += j ^ i
		}
	}
	_ = s
}
`

// TestCPUSimSyscalls runs Go benchmarks under cachegrind with their
// system calls traced, for real: a patch that writes each record in one
// write(2) call instead of three counts 1 syscall per op against 3 and is
// better in syscalls/op; the benchmark that makes no call counts 0 on
// both sides; the runtime's own calls (futex, nanosleep, ...) are not
// counted.
func TestCPUSimSyscalls(t *testing.T) {
	if msg := valgrindMissing(); msg != "" {
		t.Skip(msg)
	}
	r := gitrepo.New(t)
	r.Commit("log", map[string]string{"go.mod": "module example.org/logw\n\ngo 1.22\n", "logw/logw.go": logSource(3), "logw/logw_test.go": logBench})
	patch := r.Patch("logw: one write per record", map[string]string{"logw/logw.go": logSource(1)}, true)
	opts := testOptions(t, r.Dir, Candidate{Name: "patch", Patch: patch})
	opts.Suites = []config.Suite{{Name: "go", Preset: "go", Instrument: config.InstrumentCPUSim, Count: 2, MaxCount: 2}}
	opts.SimWork = 5 * time.Millisecond
	out, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Failures) > 0 {
		t.Fatalf("failures: %+v", out.Failures)
	}
	got := map[string][]float64{}
	for _, res := range out.Results {
		if strings.HasSuffix(res.Unit, bench.SyscallsPerOp) {
			k := res.Variant + " " + res.Benchmark + " " + res.Unit
			got[k] = append(got[k], res.Samples...)
		}
		if k, ok := strings.CutSuffix(res.Unit, "-"+bench.SyscallsPerOp); ok && runtimeSyscalls[k] {
			t.Errorf("the runtime's own %s calls were counted: %+v", k, res)
		}
	}
	t.Logf("syscalls per op: %v", got)
	t.Logf("warnings: %q", out.Warnings)
	for _, res := range out.Results {
		if res.Unit == "instructions/op" {
			t.Logf("%s %s instructions/op %v", res.Variant, res.Benchmark, res.Samples)
		}
	}
	for k, want := range map[string]float64{
		"base Append syscalls/op": 3, "base Append write-syscalls/op": 3,
		"patch Append syscalls/op": 1, "patch Append write-syscalls/op": 1,
		"base Sum syscalls/op": 0, "patch Sum syscalls/op": 0,
	} {
		if v := got[k]; len(v) != 2 || v[0] != want || v[1] != want {
			t.Errorf("%s = %v, want %v in each of 2 rounds", k, v, want)
		}
	}
	cmp, err := compare.Compare(out.Results, compare.Options{Base: "base"})
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range cmp.Rows {
		if row.Unit != bench.SyscallsPerOp {
			continue
		}
		want := compare.Same
		if strings.HasPrefix(row.Benchmark, "Append") {
			want = compare.Better
		}
		if v := row.Candidates[0].Verdict; v != want {
			t.Errorf("%s %s: verdict %s, want %s", row.Benchmark, row.Unit, v, want)
		}
	}
}

// TestSyscallsPerOpLeavesOutNetpollSetup: the netpoller's set-up, made in
// the larger run of a pair and not the smaller, is the runtime's and no
// call of the benchmark's; a write per operation is.
func TestSyscallsPerOpLeavesOutNetpollSetup(t *testing.T) {
	small := map[string]float64{"write": 170, "read": 3}
	large := map[string]float64{"write": 340, "read": 3, "epoll_create1": 1, "eventfd2": 1, parse.EventfdWrite: 1, parse.EventfdRead: 1}
	got := syscallsPerOp(small, large, 170)
	if len(got) != 1 || got["write"] != 1 {
		t.Errorf("syscallsPerOp = %v, want write 1 alone", got)
	}
}
