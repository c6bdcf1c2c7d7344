// Package job is perfbot's pipeline of one benchmark job: Run takes a Spec
// (what to compare) and Options (how this host runs it: config, cache,
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

import (
	"time"

	"github.com/perfbot/perfbot/runner"
)

// Spec is one benchmark job: what to compare and where the answer goes.
// The service stores it as its queue job's arguments, as JSON.
type Spec struct {
	// Key identifies the request: the same request arriving twice (a
	// replayed webhook, a second poll) has the same key and is queued once.
	// It is also the answer's stable key for edit-in-place posting.
	Key string `json:"key" river:"unique"`
	// Targets are where the answer goes, as review targets
	// ("github:acme/store#12", "mail:dev@example.org").
	Targets []string `json:"targets"`
	// Suites lists the suites to run; empty means all.
	Suites []string `json:"suites,omitempty"`
	// BaseRef is the baseline ref; empty means the project branch.
	BaseRef string `json:"base_ref,omitempty"`
	// BaseCommit is the commit a mailed series names as its base in its
	// cover letter ("base-commit:", git format-patch --base), as written.
	// Unless BaseRef is set, it, or the base-commit line of the patch
	// itself, is the baseline when the repository has it.
	BaseCommit string `json:"base_commit,omitempty"`
	// CandidateRef is the ref to test (a branch, a pull ref); empty when
	// the candidate is BaseRef plus Patch.
	CandidateRef string `json:"candidate_ref,omitempty"`
	// CandidateCommit, when set, is the commit the request was approved
	// for, pinned when it was admitted (read from the event or from the
	// venue then): the candidate is exactly this commit, CandidateRef only
	// names it, and the job fails, saying so, when the repository no
	// longer has it. A head pushed after the approval is never measured
	// under it. The answers and commit statuses name this commit.
	CandidateCommit string `json:"candidate_commit,omitempty"`
	// PatchURL is where to fetch a patch to apply; Patch is the patch
	// itself, when it came inline (mail).
	PatchURL string `json:"patch_url,omitempty"`
	Patch    string `json:"patch,omitempty"`
	// Title describes the request for logs and digests.
	Title string `json:"title,omitempty"`
	// Subject, when set, is the subject the answer keeps: a mail thread's
	// (the cover letter's), answered with "Re: ".
	Subject string `json:"subject,omitempty"`
	// Requester is who asked.
	Requester string `json:"requester,omitempty"`
	// Thread holds a mail request's Message-ID (cover letter or first
	// patch) and References, so the answer joins the thread.
	InReplyTo  string   `json:"in_reply_to,omitempty"`
	References []string `json:"references,omitempty"`
	// Repo, when set, is the repository to benchmark instead of the
	// project's; Track names the tracked branch whose history the run
	// joins ("REPO@BRANCH", see package track).
	Repo  string `json:"repo,omitempty"`
	Track string `json:"track,omitempty"`
	// KeepInstruments are instruments chosen before that suites set to
	// auto keep instead of probing the host: a tracked branch's runs keep
	// the one its first tracked commit chose (see track.KeptInstruments).
	KeepInstruments []runner.KeptInstrument `json:"keep_instruments,omitempty"`
	// Bench, when set, narrows Go suites to the benchmarks matching this
	// go test -bench regexp (a bisect measures only those that moved).
	Bench string `json:"bench,omitempty"`
	// Source says which intake made the job: "github", "jira",
	// "reviewboard", "mail", "schedule", "cli".
	Source string `json:"source"`
}

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
