package sandbox

import (
	"context"
	"errors"
	"os"
	"sync"
)

// Local runs commands directly on the host, in their own process group so
// that a timeout ends every process they started, with the memory and
// process limits of the Spec where a cgroup can hold them (else rlimits).
// It isolates nothing: use it only for patches the user trusts.
type Local struct {
	// CgroupParent is as for Bubblewrap ("": automatic; NoCgroups:
	// rlimits only).
	CgroupParent string
}

var _ Runner = Local{}

// Run runs spec on the host.
func (l Local) Run(ctx context.Context, spec Spec) (*Result, error) {
	if len(spec.Argv) == 0 {
		return nil, errors.New("sandbox: empty command")
	}
	if spec.Session != nil && !spec.Session.host {
		return nil, errors.New("sandbox: a sandboxed session cannot run a command of sandbox.Local")
	}
	if spec.Service {
		if spec.Session == nil {
			return nil, errors.New("sandbox: a service command needs a session (Spec.Session)")
		}
		// On the host, what a service starts in the background stays
		// running until its teardown or the session's end ends it.
		hooks := &procHooks{leaveGroup: true}
		spec.Session.joinGroup(hooks)
		argv := spec.Argv
		if hooks.gated {
			argv = gateArgv(argv)
		}
		return runProcessGroup(ctx, spec, argv, hooks)
	}
	parent := l.CgroupParent
	if spec.Session != nil {
		parent = spec.Session.limitParent()
	}
	hooks := limitHooks(spec, parent, os.Getuid(), os.Geteuid() == 0)
	if spec.Session != nil {
		spec.Session.joinGroup(hooks)
	}
	argv := spec.Argv
	if hooks.gated {
		argv = gateArgv(argv)
	}
	return runProcessGroup(ctx, spec, argv, hooks)
}

// cappedBuffer keeps the first limit bytes written to it and counts the rest.
type cappedBuffer struct {
	mu      sync.Mutex
	buf     []byte
	limit   int64
	dropped int64
	// watch, when set, sees every write.
	watch func(p []byte)
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.watch != nil {
		b.watch(p)
	}
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
