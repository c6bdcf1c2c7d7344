package job

import (
	"slices"
	"time"

	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/runner"
)

// tracker turns the runner's steps into Progress with an estimate of the
// time left: the mean time of the suite's side-rounds so far times the
// side-rounds left (up to the most adaptive sampling may run, within its
// time budget), plus, for each suite still to come, as long as this one
// is expected to take.
type tracker struct {
	fn     ProgressFunc
	now    func() time.Time
	start  time.Time
	suites []string
	// The current suite: its name, when it started, when its first
	// measured round started and how many side-rounds have started.
	suite      string
	suiteStart time.Time
	runStart   time.Time
	started    int
}

// newTracker tracks a job that runs the named suites of cfg (all when
// none is named).
func newTracker(fn ProgressFunc, cfg *config.Config, names []string) *tracker {
	t := &tracker{fn: fn, now: time.Now, suites: names}
	t.start = t.now()
	if len(names) == 0 && cfg != nil {
		for _, s := range cfg.Suites {
			t.suites = append(t.suites, s.Name)
		}
	}
	return t
}

// stage reports a stage without rounds.
func (t *tracker) stage(stage string) {
	if t.fn == nil {
		return
	}
	t.fn(Progress{Stage: stage, Elapsed: t.now().Sub(t.start)})
}

// step is runner.Options.Step.
func (t *tracker) step(s runner.Step) {
	if t.fn == nil {
		return
	}
	now := t.now()
	if s.Suite != t.suite {
		t.suite, t.suiteStart, t.runStart, t.started = s.Suite, now, time.Time{}, 0
	}
	p := Progress{Stage: s.Stage, Suite: s.Suite, Variant: s.Variant, Round: s.Round, Rounds: s.Rounds, Elapsed: now.Sub(t.start)}
	if s.Stage != "run" {
		t.fn(p)
		return
	}
	p.Rounds = max(s.Rounds, s.MaxRounds)
	if t.runStart.IsZero() {
		t.runStart = now
	}
	done := t.started
	t.started++
	if done == 0 || s.Sides == 0 {
		t.fn(p) // no estimate before a round has run
		return
	}
	per := now.Sub(t.runStart) / time.Duration(done)
	planned := time.Duration(s.Rounds*s.Sides-done) * per
	left := time.Duration(p.Rounds*s.Sides-done) * per
	if s.Budget > 0 {
		// Adaptive rounds stop when the budget is spent.
		left = min(left, max(s.Budget-now.Sub(t.runStart), 0))
	}
	left = max(left, planned)
	if i := slices.Index(t.suites, s.Suite); i >= 0 {
		// Each suite to come as long as this one.
		left += time.Duration(len(t.suites)-1-i) * (now.Sub(t.suiteStart) + left)
	}
	p.Remaining = left
	t.fn(p)
}
