// Package service wires perfbot's service: requests from the venues become
// benchmark jobs on a River queue; workers run them, store the outcome in
// the history and post the answer where the request came from, exactly
// once; schedules start nightly runs and digests.
//
// The embedded default is one "perfbot serve" process with SQLite holding
// both the history and the queue, running jobs itself. With PostgreSQL,
// "perfbot worker" runs on each benchmark host, taking one job at a time.
package service

import (
	"time"

	"github.com/perfbot/perfbot/job/jobspec"
	"github.com/perfbot/perfbot/target"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// JobSpec is one benchmark job; see jobspec.Spec.
type JobSpec = jobspec.Spec

// DigestJob asks for the digest of the period ending at End.
type DigestJob struct {
	// Name is the schedule that fired; with End it makes the job unique.
	Name   string    `json:"name" river:"unique"`
	Period string    `json:"period"`
	End    time.Time `json:"end" river:"unique"`
	// Targets are where the digest goes.
	Targets []target.Target `json:"targets"`
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
