// Package bot wires perfbot's service: requests from the venues become
// benchmark jobs on a River queue; workers run them, store the outcome in
// the history and post the answer where the request came from, exactly
// once; schedules start nightly runs and digests.
//
// The embedded default is one "perfbot serve" process with SQLite holding
// both the history and the queue, running jobs itself. With PostgreSQL,
// "perfbot worker" runs on each benchmark host, taking one job at a time.
package bot

import (
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// JobSpec is one benchmark job: what to compare and where the answer goes.
// It is the queue job's arguments, stored as JSON.
type JobSpec struct {
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
	// CandidateRef is the ref to test (a branch, a pull ref); empty when
	// the candidate is BaseRef plus Patch.
	CandidateRef string `json:"candidate_ref,omitempty"`
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
	// Source says which intake made the job: "github", "jira",
	// "reviewboard", "mail", "schedule", "cli".
	Source string `json:"source"`
}

// Kind is the queue's name for benchmark jobs.
func (JobSpec) Kind() string { return "perfbot_benchmark" }

// InsertOpts makes jobs unique by key for as long as they exist in the
// queue, in any state: the same request twice is one job.
func (JobSpec) InsertOpts() river.InsertOpts {
	return river.InsertOpts{UniqueOpts: river.UniqueOpts{
		ByArgs:  true,
		ByState: rivertype.UniqueOptsByStateDefault(),
	}}
}

// DigestJob asks for the digest of the period ending at End.
type DigestJob struct {
	// Name is the schedule that fired; with End it makes the job unique.
	Name   string    `json:"name" river:"unique"`
	Period string    `json:"period"`
	End    time.Time `json:"end" river:"unique"`
	// Targets are where the digest goes.
	Targets []string `json:"targets"`
}

// Kind is the queue's name for digest jobs.
func (DigestJob) Kind() string { return "perfbot_digest" }

// InsertOpts makes a digest unique per schedule and period end.
func (DigestJob) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: ServiceQueue, UniqueOpts: river.UniqueOpts{
		ByArgs:  true,
		ByState: rivertype.UniqueOptsByStateDefault(),
	}}
}

// ServiceQueue is the queue of light jobs (digests) that "perfbot serve"
// runs itself, apart from the benchmark queue.
const ServiceQueue = "service"
