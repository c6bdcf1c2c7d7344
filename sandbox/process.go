package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"time"
)

// procHooks let a Runner add steps around the process that
// runProcessGroup starts. Every field is optional.
type procHooks struct {
	// gated says argv was wrapped by gateArgv: the process waits on a pipe
	// at fd 3 until afterStart is done.
	gated bool
	// afterStart runs once the process exists and before it is let go: it
	// moves the process into a cgroup or sets its rlimits.
	afterStart func(pid int) error
	// limitHit, polled every limitPoll while the command runs, reports
	// that it reached a limit (pid is the started process): the command is
	// then killed, and finish names the limit.
	limitHit func(pid int) bool
	// watchStderr sees every chunk the command writes to stderr, kept or
	// not.
	watchStderr func(p []byte)
	// kill ends everything the command started (beyond its process group).
	kill func()
	// finish inspects how the command ended (cgroup events) and may set
	// res.Limit and notes; it also releases what afterStart set up.
	finish func(res *Result)
	// leaveGroup leaves the processes that outlive the command running
	// when it ends by itself (a session's service); a timeout or a
	// cancelled ctx still ends them.
	leaveGroup bool
}

// waitDelay is how long output is still read after the command ended.
const waitDelay = 5 * time.Second

// gateScript waits for one line on fd 3, closes it and runs its arguments.
// It lets the parent put the process into a cgroup before it can fork.
const gateScript = `read -r _ <&3 || exit 125; exec 3<&-; exec "$@"`

// gateArgv wraps argv in gateScript.
func gateArgv(argv []string) []string {
	return append([]string{"/bin/sh", "-c", gateScript, "perfbot-sandbox"}, argv...)
}

// runProcessGroup starts argv in a new process group and waits for it,
// killing the group at the timeout or when ctx ends.
func runProcessGroup(ctx context.Context, spec Spec, argv []string, h *procHooks) (*Result, error) {
	if h == nil {
		h = &procHooks{}
	}
	limit := spec.MaxOutput
	if limit <= 0 {
		limit = DefaultMaxOutput
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = spec.Dir
	cmd.Env = spec.Env
	stdout := &cappedBuffer{limit: limit}
	stderr := &cappedBuffer{limit: limit, watch: h.watchStderr}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	// Pdeathsig kills the command when the perfbot that started it dies,
	// even by SIGKILL, so that no benchmark outlives a crashed worker.
	// The kernel sends it when the parent *thread* exits, not the
	// process: the thread that forks stays locked to this goroutine until
	// the command has ended (see below), so the Go runtime can neither
	// reuse it nor let it exit while the command runs.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	// A process that left the group (setsid) but holds the output pipes
	// must not keep Wait waiting once the command itself has ended.
	cmd.WaitDelay = waitDelay
	abandon := func() {
		if h.finish != nil {
			h.finish(&Result{})
		}
	}
	var gateR, gateW *os.File
	if h.gated {
		var err error
		if gateR, gateW, err = os.Pipe(); err != nil {
			abandon()
			return nil, fmt.Errorf("sandbox: %w", err)
		}
		defer gateW.Close()
		cmd.ExtraFiles = []*os.File{gateR}
	}
	// Every return below comes after the command has been waited for:
	// only then may the forking thread go back to the runtime.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := time.Now()
	err := cmd.Start()
	if gateR != nil {
		gateR.Close()
	}
	if err != nil {
		abandon()
		return nil, fmt.Errorf("start %s: %w", argv[0], err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	if h.afterStart != nil {
		err = h.afterStart(cmd.Process.Pid)
	}
	if err == nil && gateW != nil {
		_, err = gateW.Write([]byte("go\n"))
		gateW.Close()
	}
	if err != nil {
		killGroup(cmd.Process.Pid)
		<-done
		abandon()
		return nil, fmt.Errorf("sandbox: set up limits: %w", err)
	}

	var timeout <-chan time.Time
	if spec.Timeout > 0 {
		t := time.NewTimer(spec.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	var poll <-chan time.Time
	if h.limitHit != nil {
		tick := time.NewTicker(limitPoll)
		defer tick.Stop()
		poll = tick.C
	}
	res := &Result{}
	var waitErr error
wait:
	for {
		select {
		case waitErr = <-done:
			break wait
		case <-poll:
			if !h.limitHit(cmd.Process.Pid) {
				continue
			}
			killGroup(cmd.Process.Pid)
			if h.kill != nil {
				h.kill()
			}
			waitErr = <-done
			break wait
		case <-timeout:
			res.Limit = LimitTimeout
			killGroup(cmd.Process.Pid)
			if h.kill != nil {
				h.kill()
			}
			waitErr = <-done
			break wait
		case <-ctx.Done():
			killGroup(cmd.Process.Pid)
			if h.kill != nil {
				h.kill()
			}
			<-done
			if h.finish != nil {
				h.finish(res)
			}
			return nil, ctx.Err()
		}
	}
	// Children that outlived the leader still hold the group: end them.
	if !h.leaveGroup || res.Limit == LimitTimeout {
		killGroup(cmd.Process.Pid)
		if h.kill != nil {
			h.kill()
		}
	}
	res.Duration = time.Since(start)
	res.Stdout, res.Stderr = stdout.Bytes(), stderr.Bytes()
	res.Dropped = stdout.dropped + stderr.dropped
	res.ExitCode = 0
	var ee *exec.ExitError
	switch {
	case waitErr == nil:
	case errors.As(waitErr, &ee):
		res.ExitCode = ee.ExitCode()
	case errors.Is(waitErr, exec.ErrWaitDelay) && cmd.ProcessState != nil:
		res.ExitCode = cmd.ProcessState.ExitCode()
		res.addNote("a process that left the command's process group still held its output and was abandoned")
	default:
		if h.finish != nil {
			h.finish(res)
		}
		return nil, fmt.Errorf("wait for %s: %w", argv[0], waitErr)
	}
	if res.Limit == LimitTimeout {
		res.addNote(fmt.Sprintf("killed with all its processes at the %s timeout", spec.Timeout))
	}
	if h.finish != nil {
		h.finish(res)
	}
	if stdout.dropped > 0 {
		res.addNote(fmt.Sprintf("stdout cut at %s, %d bytes dropped", sizeString(limit), stdout.dropped))
	}
	if stderr.dropped > 0 {
		res.addNote(fmt.Sprintf("stderr cut at %s, %d bytes dropped", sizeString(limit), stderr.dropped))
	}
	if res.Dropped > 0 && res.Limit == "" {
		res.Limit = LimitOutput
	}
	return res, nil
}

// addNote appends a clause to r.Note.
func (r *Result) addNote(s string) {
	if r.Note != "" {
		r.Note += "; "
	}
	r.Note += s
}

// sizeString renders a byte count the way a person would write a limit.
func sizeString(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

func killGroup(pid int) {
	_ = syscall.Kill(-pid, syscall.SIGKILL)
}
