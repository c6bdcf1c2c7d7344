package runner

import "time"

// Step is a build or a round about to start, as Options.Step receives it:
// where a job's progress and its estimate of the time left come from.
type Step struct {
	// Stage is "build", "warm-up" or "run".
	Stage string
	// Suite and Variant name the suite and the side.
	Suite, Variant string
	// Round counts the suite's warm-up or measured rounds from 1; Rounds
	// is how many are planned so far. Adaptive sampling may plan more, up
	// to MaxRounds (0: no cap but the budget).
	Round, Rounds, MaxRounds int
	// Sides is how many sides run each round.
	Sides int
	// Budget is the suite's time budget for adaptive sampling (0: none).
	Budget time.Duration
}

// step hands s to Options.Step, if set.
func (o *Options) step(s Step) {
	if o.Step != nil {
		o.Step(s)
	}
}
