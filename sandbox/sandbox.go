// Package sandbox runs one command of a benchmark job (a build, a benchmark
// round, a setup or teardown step) with limits: wall-clock time for the
// whole process tree, and the amount of output kept.
package sandbox

import (
	"context"
	"time"
)

// Network says what a command may reach.
type Network int

const (
	// NoNetwork allows no network at all.
	NoNetwork Network = iota
	// Loopback allows only the command's own loopback interface, for a
	// suite that starts its own server.
	Loopback
	// FullNetwork allows the network, for a build step that fetches
	// dependencies.
	FullNetwork
)

// Spec is one command to run.
type Spec struct {
	// Argv is the program and its arguments.
	Argv []string
	// Dir is the working directory; it is writable.
	Dir string
	// Env is the command's whole environment, as KEY=VALUE.
	Env []string
	// Timeout ends the whole process tree when it passes (0: none).
	Timeout time.Duration
	// MaxOutput is how many bytes of stdout and of stderr are kept each
	// (0: a default of 16 MiB). Output past it is discarded and counted.
	MaxOutput int64
	// Network says what the command may reach.
	Network Network
	// Writable lists directories besides Dir that the command may write.
	Writable []string
	// ReadOnly lists host paths a sandboxed command may read even where
	// they lie under a hidden path (a Go module cache under /root, say).
	// Everything else outside the hidden paths is readable anyway.
	ReadOnly []string
	// HiddenPaths are host paths a sandboxed command must not see, besides
	// those its Runner hides: each is replaced by an empty directory or an
	// empty file.
	HiddenPaths []string
	// MemoryBytes caps the memory of the whole process tree (0: no cap).
	MemoryBytes int64
	// MaxProcs caps the number of processes and threads of the tree (0: no
	// cap).
	MaxProcs int
	// Session, when set, runs the command inside that session (see
	// StartSession) instead of a sandbox of its own: it sees what the
	// session's other commands see, such as a server on its loopback.
	Session *Session
	// Service, with Session, leaves the processes the command started in
	// the background (a server) running in the session when the command
	// ends, under the command's memory and process limits; without it they
	// are ended with the command.
	Service bool
	// MaxFileSize caps the size of any file a process of the tree writes
	// (RLIMIT_FSIZE; 0: no cap). A write past it ends the writer with
	// SIGXFSZ, or fails with EFBIG where the signal is ignored.
	MaxFileSize int64
}

// Result is how a command ended.
type Result struct {
	Stdout, Stderr []byte
	// ExitCode is the command's exit status (-1 when killed by a signal).
	ExitCode int
	// Limit names the limit that ended or cut the command: "" (none),
	// LimitTimeout, LimitMemory, LimitPids, LimitFileSize or LimitOutput.
	Limit string
	// Note says in a sentence which limits the command reached and what
	// they did to it ("" when none), for the report.
	Note string
	// Dropped is the number of output bytes discarded past MaxOutput.
	Dropped  int64
	Duration time.Duration
}

// Limits that can end or cut a command.
const (
	LimitTimeout = "timeout"
	LimitOutput  = "output"
	LimitMemory  = "memory"
	LimitPids    = "pids"
	// LimitFileSize: a write went past Spec.MaxFileSize.
	LimitFileSize = "filesize"
)

// OK reports whether the command exited with status 0 within its limits.
// Output cut at MaxOutput does not make a run fail; a timeout, or a memory,
// process or file-size limit reached, does.
func (r *Result) OK() bool { return r.ExitCode == 0 && (r.Limit == "" || r.Limit == LimitOutput) }

// Runner runs commands. Run returns an error only when the command could not
// be started; a command that failed is a Result with a non-zero ExitCode.
type Runner interface {
	Run(ctx context.Context, spec Spec) (*Result, error)
}

// DefaultMaxOutput is the output kept per stream when Spec.MaxOutput is 0.
const DefaultMaxOutput = 16 << 20
