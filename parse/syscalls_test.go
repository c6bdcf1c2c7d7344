package parse

import (
	"context"
	"os"
	"strings"
	"testing"
)

// The trace of a real run of examples/wal's BenchmarkAppend at 4x under
// cachegrind (see testdata/PROVENANCE.md): 1 + 4 Appends of two write(2)
// calls each on the segment (fd 8), 7 writes of the testing package's
// output on stdout, and 1 of the runtime's netpoller on its eventfd (fd 7).
func TestReadSyscallTraceRealValgrind(t *testing.T) {
	f, err := os.Open("testdata/valgrind-trace/valgrind-3.19-trace-syscalls-go-test-wal-append-4x.log")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, err := ReadSyscallTrace(context.Background(), f, "append.log")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"write": 17, "eventfd2": 1, EventfdWrite: 1, "clock_gettime": 363, "rt_sigaction": 114, "futex": 84, "nanosleep": 50, "mmap": 25, "fcntl": 22, "exit_group": 1, "sched_yield": 12}
	for k, v := range want {
		if tr.Calls[k] != v {
			t.Errorf("%s calls = %v, want %v", k, tr.Calls[k], v)
		}
	}
	if _, ok := tr.Calls["..."]; ok {
		t.Errorf("the ends of blocking calls were counted as a kind: %v", tr.Calls)
	}
	total := 0.0
	for _, v := range tr.Calls {
		total += v
	}
	// 1032 traced SYSCALLs, 227 of them the ends of calls that blocked.
	if total != 1032-227 {
		t.Errorf("counted %v calls, want %d", total, 1032-227)
	}
}

func TestReadSyscallTraceInterleavedAndBad(t *testing.T) {
	in := "==1== Cachegrind\n" +
		"SYSCALL[5,1](231) exit_group( 0 )SYSCALL[5,2](24) ... [async] --> Success(0x0) \n" +
		"SYSCALL[5,2](74) sys_fsync ( 3 ) --> [async] ... \n" +
		"SYSCALL[5,1](290) sys_eventfd2 ( 0, 526336 ) --> [async] ... \n" +
		"SYSCALL[5,1](290) ... [async] --> Success(0xa) \n" +
		"SYSCALL[5,3](1) sys_write ( 10, 0x25e408f9fec0, 8 ) --> [async] ... \n" +
		"SYSCALL[5,3](1) sys_write ( 1, 0x25e408f9fec0, 8 ) --> [async] ... \n" +
		"SYSCALL[5,1](0) sys_read ( 10, 0x1fff000270, 8 ) --> [async] ... \n"
	tr, err := ReadSyscallTrace(context.Background(), strings.NewReader(in), "x.log")
	if err != nil {
		t.Fatal(err)
	}
	if tr.Calls["exit_group"] != 1 || tr.Calls["fsync"] != 1 || tr.Calls["write"] != 1 || tr.Calls[EventfdWrite] != 1 || tr.Calls[EventfdRead] != 1 || len(tr.Calls) != 6 {
		t.Errorf("calls = %v, want exit_group, fsync, eventfd2, write, eventfd_write and eventfd_read 1 each", tr.Calls)
	}
	_, err = ReadSyscallTrace(context.Background(), strings.NewReader("==1==\nSYSCALL[5,x](1) sys_write\n"), "x.log")
	if err == nil || !strings.Contains(err.Error(), "x.log:2:") {
		t.Errorf("error = %v, want one naming x.log:2", err)
	}
}
