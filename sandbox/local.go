package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// Local runs commands directly on the host, in their own process group so
// that a timeout ends every process they started. It isolates nothing: use it
// only for patches the user trusts.
type Local struct{}

var _ Runner = Local{}

// Run runs spec on the host.
func (Local) Run(ctx context.Context, spec Spec) (*Result, error) {
	if len(spec.Argv) == 0 {
		return nil, errors.New("sandbox: empty command")
	}
	return runProcessGroup(ctx, spec, spec.Argv)
}

// runProcessGroup starts argv in a new process group and waits for it,
// killing the group at the timeout or when ctx ends.
func runProcessGroup(ctx context.Context, spec Spec, argv []string) (*Result, error) {
	limit := spec.MaxOutput
	if limit <= 0 {
		limit = DefaultMaxOutput
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = spec.Dir
	cmd.Env = spec.Env
	stdout := &cappedBuffer{limit: limit}
	stderr := &cappedBuffer{limit: limit}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", argv[0], err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()

	var timeout <-chan time.Time
	if spec.Timeout > 0 {
		t := time.NewTimer(spec.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	res := &Result{}
	var waitErr error
	select {
	case waitErr = <-done:
	case <-timeout:
		res.Limit = LimitTimeout
		killGroup(cmd.Process.Pid)
		waitErr = <-done
	case <-ctx.Done():
		killGroup(cmd.Process.Pid)
		<-done
		return nil, ctx.Err()
	}
	// Children that outlived the leader still hold the group: end them.
	killGroup(cmd.Process.Pid)
	res.Duration = time.Since(start)
	res.Stdout, res.Stderr = stdout.Bytes(), stderr.Bytes()
	res.Dropped = stdout.dropped + stderr.dropped
	if res.Dropped > 0 && res.Limit == "" {
		res.Limit = LimitOutput
	}
	res.ExitCode = 0
	if waitErr != nil {
		var ee *exec.ExitError
		if !errors.As(waitErr, &ee) {
			return nil, fmt.Errorf("wait for %s: %w", argv[0], waitErr)
		}
		res.ExitCode = ee.ExitCode()
	}
	return res, nil
}

func killGroup(pid int) {
	_ = syscall.Kill(-pid, syscall.SIGKILL)
}

// cappedBuffer keeps the first limit bytes written to it and counts the rest.
type cappedBuffer struct {
	mu      sync.Mutex
	buf     []byte
	limit   int64
	dropped int64
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	room := b.limit - int64(len(b.buf))
	if room > int64(len(p)) {
		room = int64(len(p))
	}
	if room > 0 {
		b.buf = append(b.buf, p[:room]...)
	}
	b.dropped += int64(len(p)) - max(room, 0)
	return len(p), nil
}

func (b *cappedBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf
}
