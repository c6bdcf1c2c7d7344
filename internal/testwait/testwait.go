// Package testwait lets a test wait for the outcome of real work (a build,
// a benchmark, a job) for as long as that work makes progress, instead of
// a fixed wall-clock time that a loaded host can exceed. Progress is CPU
// time spent by the test process's descendants (go build, benchmark
// binaries, git, worker processes): a job that waits on nothing and burns
// no CPU is a hang, and fails after the idle window, however loaded the
// host.
package testwait

import (
	"bytes"
	"os"
	"strconv"
	"testing"
	"time"
)

// margin is how long before the test binary's deadline (go test -timeout)
// a wait gives up, so that it fails with its own message rather than the
// timeout's stack dump.
const margin = 20 * time.Second

// poll is the interval between two looks at the condition.
const poll = 100 * time.Millisecond

// Until polls ok until it returns true. It fails t when idle passes with
// no progress: neither the condition's inputs (progress, if given, returns
// something new) nor the CPU time of the process's descendants changed.
// It also fails when the test's deadline is near.
func Until(t testing.TB, idle time.Duration, what string, ok func() bool, progress ...func() string) {
	t.Helper()
	start := time.Now()
	last := start
	cpu := ChildCPU()
	marks := make([]string, len(progress))
	for i, p := range progress {
		marks[i] = p()
	}
	deadline, hasDeadline := time.Time{}, false
	if d, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		deadline, hasDeadline = d.Deadline()
	}
	for !ok() {
		now := time.Now()
		if c := ChildCPU(); c > cpu {
			cpu, last = c, now
		}
		for i, p := range progress {
			if m := p(); m != marks[i] {
				marks[i], last = m, now
			}
		}
		if now.Sub(last) > idle {
			t.Fatalf("no progress for %v while waiting for %s (%v in all): no CPU spent by child processes, nothing new", idle, what, now.Sub(start).Round(time.Second))
		}
		if hasDeadline && now.Add(margin).After(deadline) {
			t.Fatalf("waited %v for %s, still progressing, until the test's deadline", now.Sub(start).Round(time.Second), what)
		}
		time.Sleep(poll)
	}
}

// ChildCPU returns the CPU time, in clock ticks, that the descendants of
// this process have used: those still running and those already reaped.
// It reads /proc; without it, it returns 0.
func ChildCPU() int64 {
	self := os.Getpid()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	type proc struct {
		ppid int
		own  int64 // utime + stime
		kids int64 // cutime + cstime: reaped children
	}
	procs := map[int]proc{}
	children := map[int][]int{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // gone meanwhile
		}
		p, ok := parseStat(data)
		if !ok {
			continue
		}
		procs[pid] = proc{ppid: p[0], own: int64(p[1] + p[2]), kids: int64(p[3] + p[4])}
		children[p[0]] = append(children[p[0]], pid)
	}
	total := procs[self].kids
	queue := append([]int(nil), children[self]...)
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		p := procs[pid]
		total += p.own + p.kids
		queue = append(queue, children[pid]...)
	}
	return total
}

// parseStat returns ppid, utime, stime, cutime and cstime from the
// contents of /proc/PID/stat. The command name, in parentheses, may hold
// spaces and parentheses itself: fields are counted after its last ')'.
func parseStat(data []byte) ([5]int, bool) {
	var out [5]int
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return out, false
	}
	fields := bytes.Fields(data[i+1:])
	// fields[0] is the state (field 3 of stat); ppid is field 4, utime
	// 14, stime 15, cutime 16, cstime 17.
	for k, f := range []int{4, 14, 15, 16, 17} {
		if f-3 >= len(fields) {
			return out, false
		}
		v, err := strconv.Atoi(string(fields[f-3]))
		if err != nil {
			return out, false
		}
		out[k] = v
	}
	return out, true
}
