package testwait

import (
	"fmt"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"
)

// fakeT records the failure of a wait run in its own goroutine.
type fakeT struct {
	testing.TB
	failed string
}

func (f *fakeT) Helper() {}

func (f *fakeT) Fatalf(format string, args ...any) {
	f.failed = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (f *fakeT) Deadline() (time.Time, bool) { return time.Time{}, false }

// wait runs Until with a fake test and returns its failure message.
func wait(idle time.Duration, ok func() bool, progress ...func() string) string {
	f := &fakeT{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Until(f, idle, "the thing", ok, progress...)
	}()
	<-done
	return f.failed
}

// TestIdleFails: a wait with nothing running fails after the idle window.
func TestIdleFails(t *testing.T) {
	start := time.Now()
	msg := wait(500*time.Millisecond, func() bool { return false })
	if !strings.Contains(msg, "no progress") || !strings.Contains(msg, "the thing") {
		t.Fatalf("failure %q, want one about no progress waiting for the thing", msg)
	}
	if took := time.Since(start); took < 500*time.Millisecond {
		t.Errorf("gave up after %v, before the idle window", took)
	}
}

// TestBusyChildKeepsWaiting: a child that spends CPU keeps the wait going
// well past the idle window, until the condition holds.
func TestBusyChildKeepsWaiting(t *testing.T) {
	cmd := exec.Command("sh", "-c", "while :; do :; done")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	// The child must have spent a tick before the window can start.
	for c := ChildCPU(); ChildCPU() == c; time.Sleep(10 * time.Millisecond) {
	}
	idle := 2 * time.Second
	start := time.Now()
	if msg := wait(idle, func() bool { return time.Since(start) > 3*idle }); msg != "" {
		t.Fatalf("the wait failed while the child was busy: %s", msg)
	}
}

// TestProgressKeepsWaiting: a progress function that reports something
// new keeps the wait going; once it stops changing the wait fails.
func TestProgressKeepsWaiting(t *testing.T) {
	start := time.Now()
	n := 0
	msg := wait(400*time.Millisecond, func() bool { return false }, func() string {
		if time.Since(start) < 1500*time.Millisecond {
			n++
		}
		return fmt.Sprint(n)
	})
	if !strings.Contains(msg, "no progress") {
		t.Fatalf("failure %q, want one about no progress", msg)
	}
	if took := time.Since(start); took < 1500*time.Millisecond {
		t.Errorf("gave up after %v while progress was reported", took)
	}
}

func TestParseStat(t *testing.T) {
	got, ok := parseStat([]byte("123 (a) b) (c) S 7 1 1 0 -1 4194560 10 0 0 0 11 12 13 14 20 0 1 0 5 0 0\n"))
	if !ok || got != [5]int{7, 11, 12, 13, 14} {
		t.Fatalf("parseStat = %v, %v; want [7 11 12 13 14]", got, ok)
	}
	for _, bad := range []string{"", "123 (a S 7", "123 (a) S 7 1 1", "123 (a) S x 1 1 0 -1 0 0 0 0 0 1 2 3 4"} {
		if _, ok := parseStat([]byte(bad)); ok {
			t.Errorf("parseStat(%q) succeeded", bad)
		}
	}
}
