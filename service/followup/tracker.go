// Package followup follows the tracked branches and the requests that land
// on them: it queues the measurement of each new head of a tracked branch,
// searches the branch's history for change points and announces them, and
// follows up the answers of merged requests once the tracked runs after
// their landing are in. It hands what it has to say to the outbox and the
// jobs it wants to the queue, through interfaces it declares; it never runs
// a job itself.
package followup

import (
	"context"
	"log/slog"
	"time"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/job/jobspec"
	"github.com/perfbot/perfbot/store"
	"github.com/perfbot/perfbot/target"
	"github.com/perfbot/perfbot/track"
)

// Queue takes the benchmark jobs of tracked heads.
type Queue interface {
	// InsertBench queues a benchmark job on the named queue; duplicate
	// is true when a job with the same key exists already.
	InsertBench(ctx context.Context, spec jobspec.Spec, queue string, maxAttempts int) (id int64, duplicate bool, err error)
}

// Outbox delivers answers durably: the follow-ups' edits and replies and
// the change points' announcements are put there, as every other answer
// is. Putting the same key to the same target again edits the earlier
// post; putting the same answer again delivers nothing new.
type Outbox interface {
	Put(ctx context.Context, targets []target.Target, msg answer.Answer, final bool, newJob time.Time) error
	// Live reports whether a venue shows an answer as it changes, editing
	// it in place (GitHub, GitLab, JIRA); the others get a reply of
	// their own for a follow-up.
	Live(venue string) bool
}

// Renderer renders a stored run's final answer again, as the worker
// rendered it, for an answer the outbox no longer holds.
type Renderer interface {
	// Answer renders cmp, stored as run runID, as the answer to spec;
	// a non-empty state overrides the comparison's.
	Answer(ctx context.Context, spec jobspec.Spec, cmp *compare.Comparison, state string, runID int64) answer.Answer
}

// Scrubber replaces host paths in an announcement.
type Scrubber interface {
	Message(answer.Answer) answer.Answer
}

// Clones gives a git directory holding a remote repository's commits (the
// cached clone jobs use, fetched); done releases it.
type Clones interface {
	GitDir(ctx context.Context, repo string) (dir string, done func(), err error)
}

// Deps are what a Tracker works with. Clones may be nil: remote
// repositories are then not read, and requests land only by merge.
type Deps struct {
	Config *config.Config
	Store  *store.Store
	Queue  Queue
	Outbox Outbox
	Render Renderer
	Scrub  Scrubber
	Clones Clones
	// Announce holds, for each of Config.Track.Branches in order, the
	// targets its post list resolves to ("mail" is the digest's
	// recipients or the list).
	Announce [][]target.Target
	Logger   *slog.Logger
}

// Tracker follows the tracked branches and the requests that land on them.
type Tracker struct {
	cfg      *config.Config
	st       *store.Store
	queue    Queue
	outbox   Outbox
	render   Renderer
	scrub    Scrubber
	clones   Clones
	announce [][]target.Target
	log      *slog.Logger
}

// New returns the tracker of d.Config's tracked branches.
func New(d Deps) *Tracker {
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	return &Tracker{cfg: d.Config, st: d.Store, queue: d.Queue, outbox: d.Outbox, render: d.Render,
		scrub: d.Scrub, clones: d.Clones, announce: d.Announce, log: d.Logger}
}

// Branch returns the tracked branch of a track's name.
func (s *Tracker) Branch(name string) (config.TrackedBranch, bool) {
	for _, b := range s.cfg.Track.Branches {
		if track.Name(s.trackedRepo(b), b.Branch) == name {
			return b, true
		}
	}
	return config.TrackedBranch{}, false
}
