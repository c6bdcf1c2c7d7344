package job

import (
	"testing"
	"time"

	"github.com/perfbot/perfbot/runner"
)

// TestTrackerEstimate: the time left is the mean side-round so far times
// the side-rounds left, up to the most adaptive sampling may run within
// its budget, plus as long again for each suite to come.
func TestTrackerEstimate(t *testing.T) {
	var got []Progress
	tr := newTracker(func(p Progress) { got = append(got, p) }, nil, []string{"a", "b"})
	clock := tr.start
	tr.now = func() time.Time { return clock }
	at := func(d time.Duration, s runner.Step) Progress {
		clock = tr.start.Add(d)
		tr.step(s)
		return got[len(got)-1]
	}
	at(0, runner.Step{Stage: "build", Suite: "a", Variant: "base", Sides: 2})
	run := runner.Step{Stage: "run", Suite: "a", Round: 1, Rounds: 5, Sides: 2}
	if p := at(10*time.Second, run); p.Remaining != 0 || p.Round != 1 || p.Rounds != 5 {
		t.Errorf("first round: %+v; want no estimate yet", p)
	}
	at(20*time.Second, run)
	run.Round = 2
	// 2 side-rounds in 20s: 10s each, 8 left in this suite (80s); suite b
	// as long as a will have taken (30s so far + 80s).
	if p := at(30*time.Second, run); p.Remaining != 190*time.Second || p.Elapsed != 30*time.Second {
		t.Errorf("round 2: remaining %v, elapsed %v; want 3m10s, 30s", p.Remaining, p.Elapsed)
	}
	// Adaptive: up to 20 rounds, within a 60s budget of which 30s are
	// spent, but the 7 side-rounds planned run anyway.
	run.MaxRounds, run.Budget = 20, time.Minute
	if p := at(40*time.Second, run); p.Rounds != 20 || p.Remaining != 70*time.Second+110*time.Second {
		t.Errorf("adaptive: rounds %d, remaining %v; want 20, 3m", p.Rounds, p.Remaining)
	}
	run.Rounds = 2
	if p := at(50*time.Second, run); p.Remaining != 20*time.Second+70*time.Second {
		t.Errorf("adaptive, budget nearly spent: remaining %v; want 1m30s", p.Remaining)
	}
	// The last suite: nothing after it.
	at(100*time.Second, runner.Step{Stage: "run", Suite: "b", Round: 1, Rounds: 2, Sides: 2})
	if p := at(110*time.Second, runner.Step{Stage: "run", Suite: "b", Round: 1, Rounds: 2, Sides: 2}); p.Remaining != 30*time.Second {
		t.Errorf("suite b: remaining %v, want 30s", p.Remaining)
	}
}
