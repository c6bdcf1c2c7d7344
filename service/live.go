package service

import (
	"fmt"
	"strings"
	"time"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/job"
	"github.com/perfbot/perfbot/report"
)

// liveMessage is the answer of a request that has no result yet: queued,
// running or cancelled, with status saying how it stands ("position 2 in
// the queue"). Text from the request (its title) is escaped per venue.
func liveMessage(spec JobSpec, state answer.State, status string) answer.Answer {
	msg := report.Progress(state, status, spec.Title)
	msg.Key, msg.Subject = spec.Key, spec.Subject
	// The commit the request was approved for: its status goes there,
	// not on a head pushed since.
	msg.Commit = spec.CandidateCommit
	msg.InReplyTo, msg.References = spec.InReplyTo, spec.References
	if msg.Subject == "" {
		msg.Subject = msg.Summary
	}
	return msg
}

// queuedStatus says where a queued job stands.
func queuedStatus(position, running int) string {
	s := fmt.Sprintf("position %d in the queue", position)
	switch running {
	case 0:
	case 1:
		s += " (1 job running)"
	default:
		s += fmt.Sprintf(" (%d jobs running)", running)
	}
	return s
}

// progressStatus says how far a running job got: "suite wal, round 3 of
// 10 (candidate), 4m elapsed, about 12m left".
func progressStatus(p job.Progress) string {
	var parts []string
	stage := p.Stage
	switch {
	case p.Suite != "" && p.Stage == "run":
		stage = "suite " + p.Suite
	case p.Suite != "":
		stage = p.Stage + " of suite " + p.Suite
	case stage == "":
		stage = "starting"
	}
	if p.Round > 0 {
		r := fmt.Sprintf("round %d", p.Round)
		if p.Rounds > 0 {
			r += fmt.Sprintf(" of %d", p.Rounds)
		}
		stage += ", " + r
	}
	if p.Variant != "" {
		stage += " (" + p.Variant + ")"
	}
	parts = append(parts, stage)
	if p.Elapsed > 0 {
		parts = append(parts, roundDuration(p.Elapsed)+" elapsed")
	}
	if p.Remaining > 0 {
		parts = append(parts, "about "+roundDuration(p.Remaining)+" left")
	}
	return strings.Join(parts, ", ")
}

// roundDuration shows a duration to the second, or to the minute past ten
// minutes.
func roundDuration(d time.Duration) string {
	if d >= 10*time.Minute {
		return d.Round(time.Minute).String()
	}
	return d.Round(time.Second).String()
}
