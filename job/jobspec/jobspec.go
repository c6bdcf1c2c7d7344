// Package jobspec holds the request a benchmark job is made from: what to
// compare and where the answer goes. Intake builds a Spec from a venue's
// event and hands it over; the service queues it; package job runs it.
// It imports nothing of perfbot's but the leaf package target, so a
// package that only makes requests (intake) depends on no part of the code
// that runs them.
package jobspec

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/perfbot/perfbot/target"
)

// Spec is one benchmark job: what to compare and where the answer goes.
// The service stores it as its queue job's arguments, as JSON.
type Spec struct {
	// Key identifies the request: the same request arriving twice (a
	// replayed webhook, a second poll) has the same key and is queued once.
	// It is also the answer's stable key for edit-in-place posting.
	Key string `json:"key" river:"unique"`
	// Targets are where the answer goes. In JSON each is the text
	// target.Parse reads ("github:acme/store#12", "mail:dev@example.org"),
	// as it always was.
	Targets []target.Target `json:"targets"`
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
	KeepInstruments []KeptInstrument `json:"keep_instruments,omitempty"`
	// Bench, when set, narrows Go suites to the benchmarks matching this
	// go test -bench regexp (a bisect measures only those that moved).
	Bench string `json:"bench,omitempty"`
	// Source says which intake made the job: "github", "jira",
	// "reviewboard", "mail", "schedule", "cli".
	Source string `json:"source"`
}

// KeptInstrument is an instrument a suite set to auto keeps instead of
// choosing one from the host's noise probe: the one a tracked branch's
// first run chose.
type KeptInstrument struct {
	// Suite names the suite; Instrument is walltime, cpu-sim or both.
	Suite      string `json:"suite"`
	Instrument string `json:"instrument"`
	// Why is the reason of the run that chose it.
	Why string `json:"why"`
	// Branch is the tracked branch, Since the commit whose run chose it.
	Branch string `json:"branch"`
	Since  string `json:"since"`
}

// ReadFile reads a Spec from the JSON file at path.
func ReadFile(path string) (Spec, error) {
	var spec Spec
	data, err := os.ReadFile(path)
	if err != nil {
		return spec, err
	}
	if err := json.Unmarshal(data, &spec); err != nil {
		return spec, fmt.Errorf("%s: not a job in JSON: %w", path, err)
	}
	return spec, nil
}
