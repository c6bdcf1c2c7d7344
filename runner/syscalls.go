package runner

import (
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"syscall"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/parse"
)

// Under cpu-sim a Go benchmark's two runs (N and 2N iterations) are traced
// by Valgrind (--trace-syscalls=yes), and the difference of their system
// calls divided by N is the calls per operation, by kind, as for
// instructions. Instruction counts do not see the kernel: a patch that
// replaces buffered writes by one write(2) per call runs fewer
// instructions in user space and is slower. The calls per operation are
// reported beside the instructions ("syscalls/op", and "write-syscalls/op"
// for each kind) and compared exactly (bench.Deterministic).
//
// The Go runtime's own calls depend on how long the simulated run took in
// wall time, not on the benchmark's work: sysmon's sleeps and clock reads,
// threads parked and woken (futex, the netpoller's eventfd and epoll),
// the scavenger's madvise, the memory and threads it maps and starts.
// Measured on examples/wal's BenchmarkAppend (10,000 and 20,000
// iterations, twice): write 2.0000 per op both times, while futex gave
// 0.27 and 0.18, nanosleep 0.18 and 0.09, clock_gettime 0.63 and 0.29.
// Those kinds (runtimeSyscalls) are left out of the counts. So is the
// netpoller's set-up (epoll_create1, eventfd2), which the runtime makes
// once, on the first timer or sleep, in one run of a pair and not the
// other depending on how long it took: on the work module's
// BenchmarkWork (no system call of its own) it made one run in six count
// 0.012 calls per op, every other round 0, which kept the benchmark
// undecided for 6 rounds a side instead of 2.

// runtimeSyscalls are the kinds of system calls the Go runtime makes on
// its own, at a rate set by wall time; clock_gettime and its kin are vDSO
// calls, not system calls, outside Valgrind.
var runtimeSyscalls = map[string]bool{
	"futex": true, "nanosleep": true, "clock_nanosleep": true, "sched_yield": true,
	"clock_gettime": true, "gettimeofday": true, "time": true, "getcpu": true,
	"epoll_pwait": true, "epoll_pwait2": true, "epoll_wait": true, "epoll_ctl": true,
	"epoll_create1": true, "epoll_create": true, "eventfd2": true, "eventfd": true,
	parse.EventfdRead: true, parse.EventfdWrite: true,
	"madvise": true, "mmap": true, "munmap": true, "mprotect": true,
	"clone": true, "clone3": true, "sigaltstack": true, "gettid": true, "getpid": true, "tgkill": true,
	"rt_sigprocmask": true, "rt_sigaction": true, "rt_sigreturn": true, "sched_getaffinity": true,
	"exit": true, "exit_group": true,
}

// syscallResolution is the finest count per operation reported: one call
// in a thousand operations.
const syscallResolution = 1e-3

// maxSyscallLog caps the size of a Valgrind log perfbot reads.
const maxSyscallLog = 1 << 30

// readSyscallLog counts the system calls by kind in the Valgrind log at
// path, a regular file a sandboxed command wrote (not a symbolic link),
// and removes it.
func readSyscallLog(ctx context.Context, path, name string) (map[string]float64, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("%s: valgrind log: %w", name, err)
	}
	defer os.Remove(path)
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%s: valgrind log: %w", name, err)
	}
	if !st.Mode().IsRegular() || st.Size() > maxSyscallLog {
		return nil, fmt.Errorf("%s: valgrind log %s is not a regular file of at most %d MiB", name, path, maxSyscallLog>>20)
	}
	t, err := parse.ReadSyscallTrace(ctx, f, name+" "+path)
	if err != nil {
		return nil, err
	}
	return t.Calls, nil
}

// syscallsPerOp is the difference of two runs' calls (at 2n and n
// iterations) per operation, by kind, without the runtime's own kinds,
// each rounded to syscallResolution; kinds at zero are left out.
func syscallsPerOp(small, large map[string]float64, n int) map[string]float64 {
	out := map[string]float64{}
	for k, v := range large {
		if runtimeSyscalls[k] {
			continue
		}
		d := math.Round((v-small[k])/float64(n)/syscallResolution) * syscallResolution
		if d > 0 {
			out[k] = d
		}
	}
	return out
}

// syscallResults are the system calls per operation of one benchmark,
// shaped after proto: the total ("syscalls/op"), always, and each kind's
// count ("write-syscalls/op") above zero.
func syscallResults(proto *bench.Result, perOp map[string]float64, source string) []*bench.Result {
	mk := func(unit string, v float64) *bench.Result {
		return &bench.Result{Benchmark: proto.Benchmark, Group: proto.Group, Params: proto.Params, Unit: unit,
			Better: bench.LowerIsBetter, Samples: []float64{v}, Source: source}
	}
	kinds := make([]string, 0, len(perOp))
	total := 0.0
	for k, v := range perOp {
		kinds = append(kinds, k)
		total += v
	}
	slices.Sort(kinds)
	out := []*bench.Result{mk(bench.SyscallsPerOp, math.Round(total/syscallResolution)*syscallResolution)}
	for _, k := range kinds {
		out = append(out, mk(strings.ReplaceAll(k, " ", "_")+"-"+bench.SyscallsPerOp, perOp[k]))
	}
	return out
}

// valgrindLogTail is the end of Valgrind's own messages in the log at
// path (its traced system calls left out), "" when there is none.
func valgrindLogTail(path string, lines int) string {
	data, err := readSimFile(path)
	if err != nil {
		return ""
	}
	var keep []string
	for _, l := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		if !strings.Contains(l, "SYSCALL[") {
			keep = append(keep, l)
		}
	}
	if len(keep) > lines {
		keep = keep[len(keep)-lines:]
	}
	return strings.Join(keep, "\n")
}

// joinTails joins two log tails with a newline, skipping an empty one.
func joinTails(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n" + b
}
