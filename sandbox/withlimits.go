package sandbox

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Limits are the limits every command gets, from the sandbox section of
// config.yaml. A zero field sets no limit.
type Limits struct {
	// MemoryBytes caps the memory of each command's process tree.
	MemoryBytes int64
	// MaxProcs caps the processes and threads of each command's tree.
	MaxProcs int
	// MaxOutput caps the output kept per stream.
	MaxOutput int64
	// MaxFileSize caps the size of any file a command writes.
	MaxFileSize int64
	// Timeout is the longest any one command may run.
	Timeout time.Duration
	// Network is what a benchmark step that asks for NoNetwork gets:
	// NoNetwork or Loopback. Build steps (FullNetwork) keep theirs.
	Network Network
}

// Apply returns spec with every limit of l applied: a field spec leaves
// at zero takes l's value, and one above l's is lowered to it, so that no
// command escapes what the operator configured.
func (l Limits) Apply(spec Spec) Spec {
	spec.MemoryBytes = tighter(spec.MemoryBytes, l.MemoryBytes)
	spec.MaxProcs = int(tighter(int64(spec.MaxProcs), int64(l.MaxProcs)))
	spec.MaxOutput = tighter(spec.MaxOutput, l.MaxOutput)
	spec.MaxFileSize = tighter(spec.MaxFileSize, l.MaxFileSize)
	spec.Timeout = time.Duration(tighter(int64(spec.Timeout), int64(l.Timeout)))
	if spec.Network == NoNetwork && l.Network == Loopback {
		spec.Network = Loopback
	}
	return spec
}

// tighter returns the smaller of two limits, where 0 means none.
func tighter(a, b int64) int64 {
	switch {
	case b <= 0:
		return a
	case a <= 0 || b < a:
		return b
	}
	return a
}

// String describes the limits for the provenance ("memory 256 MiB,
// processes 64, ...").
func (l Limits) String() string {
	var parts []string
	if l.MemoryBytes > 0 {
		parts = append(parts, "memory "+sizeString(l.MemoryBytes))
	}
	if l.MaxProcs > 0 {
		parts = append(parts, fmt.Sprintf("processes %d", l.MaxProcs))
	}
	if l.MaxOutput > 0 {
		parts = append(parts, "output "+sizeString(l.MaxOutput))
	}
	if l.MaxFileSize > 0 {
		parts = append(parts, "file size "+sizeString(l.MaxFileSize))
	}
	if l.Timeout > 0 {
		parts = append(parts, "timeout "+l.Timeout.String())
	}
	if l.Network == Loopback {
		parts = append(parts, "network loopback")
	}
	return strings.Join(parts, ", ")
}

// WithLimits wraps r so that every Spec it runs gets the limits of l (see
// Limits.Apply).
func WithLimits(r Runner, l Limits) Runner { return limited{r: r, l: l} }

type limited struct {
	r Runner
	l Limits
}

func (w limited) Run(ctx context.Context, spec Spec) (*Result, error) {
	return w.r.Run(ctx, w.l.Apply(spec))
}

// Unwrap returns the wrapped Runner (StartSession looks through it; the
// session's commands still run through Run and get the limits).
func (w limited) Unwrap() Runner { return w.r }
