// Package job is perfbot's pipeline of one benchmark job: Run takes a
// jobspec.Spec (what to compare) and Options (how this host runs it: config, cache,
// sandbox, rounds, instrument) and does the rest, workspace, runner,
// comparison and noise thresholds, reporting its Progress on the way, and
// returns the Outcome that renderings, the store and the venues take. It
// knows nothing of queues or venues: the service wraps a Spec in a queue
// job, intake builds one from a request, and the CLI from its flags.
//
// "perfbot compare" and "perfbot calibrate" call Run in their own process.
// The service's workers ("perfbot serve" with embedded workers, and
// "perfbot worker") run each job as a child "perfbot job", which calls Run
// and prints the whole Outcome as JSON, each cell's samples included
// (Outcome.MarshalJSON), and its progress as JSON lines on standard error
// (WriteProgress). The child process is kept on purpose: a benchmark that
// crashes or eats the memory takes the child down, not the worker; the
// child's process group is killed when the job is cancelled or the worker
// dies, so no orphan disturbs the next job on the host; and the child gets
// none of the worker's secrets (venue tokens, the queue's database URL),
// which a hostile patch's build could otherwise read from the worker.
package job

import "time"

// Progress is one step of a running job, reported as it happens: the CLI
// prints it, the service edits the live answer with it.
type Progress struct {
	// Stage is what the job is doing: "prepare" (clone, worktrees, patch),
	// "build", "warm-up", "run", "compare", "render", "store" or "post".
	Stage string `json:"stage"`
	// Suite is the suite being built or run, when there is one.
	Suite string `json:"suite,omitempty"`
	// Variant is the side being run ("base", "candidate", or a variant name).
	Variant string `json:"variant,omitempty"`
	// Round and Rounds count the rounds of the suite: round Round of at most
	// Rounds (adaptive sampling may stop earlier).
	Round  int `json:"round,omitempty"`
	Rounds int `json:"rounds,omitempty"`
	// Elapsed is the job's wall time so far; Remaining estimates the time
	// left, zero when no estimate exists yet.
	Elapsed   time.Duration `json:"elapsed_ns"`
	Remaining time.Duration `json:"remaining_ns,omitempty"`
}

// ProgressFunc receives a running job's progress. It must not block: a slow
// receiver drops steps rather than slowing the benchmark.
type ProgressFunc func(Progress)
