package child

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"runtime"
	"syscall"
	"time"

	"github.com/perfbot/perfbot/sandbox"
)

// maxCommandOutput bounds the output kept from a benchmark command.
const maxCommandOutput = 64 << 20

// processRunner runs a benchmark command in its own process group, killed
// with the group when the job is cancelled, and killed too when the worker
// itself dies (Linux's parent-death signal), so that a crashed worker
// leaves no benchmark running to disturb the next job on its host.
type processRunner struct {
	// line, when set, sees each line of the command's stderr as it comes
	// and returns whether it took it; lines it takes are not kept.
	line func([]byte) bool
}

// Run runs spec.Argv and waits for it.
func (r processRunner) Run(ctx context.Context, spec sandbox.Spec) (*sandbox.Result, error) {
	if len(spec.Argv) == 0 {
		return nil, errors.New("empty command")
	}
	cmd := exec.CommandContext(ctx, spec.Argv[0], spec.Argv[1:]...)
	cmd.Dir, cmd.Env = spec.Dir, spec.Env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr cappedBuffer
	stdout.limit, stderr.limit = maxCommandOutput, 1<<20
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	lines := &lineWriter{w: &stderr, take: r.line}
	if r.line != nil {
		cmd.Stderr = lines
	}
	// The parent-death signal fires when the thread that forked the child
	// exits, not the process. Go threads normally live as long as the
	// process, but one whose goroutine exits while locked to it ends: keep
	// the forking thread locked to this goroutine until the child has
	// been waited for, so that no other goroutine runs on it (and could
	// end it) while the child lives.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := time.Now()
	err := cmd.Run()
	lines.flush()
	res := &sandbox.Result{Stdout: stdout.buf.Bytes(), Stderr: stderr.buf.Bytes(), Duration: time.Since(start),
		Dropped: stdout.dropped + stderr.dropped}
	if stdout.dropped > 0 {
		res.Limit = sandbox.LimitOutput
	}
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		res.ExitCode = exit.ExitCode()
	case ctx.Err() != nil:
		res.ExitCode = -1
	default:
		return nil, err
	}
	return res, nil
}

// cappedBuffer keeps the first limit bytes written and counts the rest.
type cappedBuffer struct {
	buf     bytes.Buffer
	limit   int64
	dropped int64
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	room := b.limit - int64(b.buf.Len())
	if room < int64(len(p)) {
		if room > 0 {
			b.buf.Write(p[:room])
		}
		b.dropped += int64(len(p)) - max(room, 0)
		return len(p), nil
	}
	return b.buf.Write(p)
}

// maxLine bounds a stderr line handed to processRunner.line; a longer one
// is kept as output.
const maxLine = 64 << 10

// lineWriter hands each complete line to take, and writes those it does
// not take to w.
type lineWriter struct {
	w       *cappedBuffer
	take    func([]byte) bool
	partial []byte
}

func (l *lineWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			l.partial = append(l.partial, p...)
			if len(l.partial) > maxLine {
				l.flush()
			}
			break
		}
		line := append(l.partial, p[:i+1]...)
		l.partial = l.partial[:0]
		p = p[i+1:]
		if !l.take(line) {
			l.w.Write(line)
		}
	}
	return n, nil
}

// flush keeps a last line without its newline.
func (l *lineWriter) flush() {
	if l != nil && len(l.partial) > 0 {
		l.w.Write(l.partial)
		l.partial = l.partial[:0]
	}
}
