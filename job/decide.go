package job

import (
	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/runner"
)

// decide is how the job tells the runner when a suite's benchmarks are
// decided: by comparing the results so far as the job's verdicts will
// compare them (opts), a "same" verdict having ruled out a change of
// targetPct (0: compare.DefaultTargetPct). The runner measures; the job
// decides.
func decide(opts compare.Options, targetPct float64) runner.Decide {
	return func(results []*bench.Result, variants []string) ([]runner.Undecided, error) {
		o := opts
		o.Base, o.Candidates = variants[0], variants[1:]
		pending, err := compare.Undecided(results, o, targetPct)
		if err != nil {
			return nil, err
		}
		undecided := make([]runner.Undecided, len(pending))
		for i, p := range pending {
			undecided[i] = runner.Undecided{Key: p.Key, Name: p.Name, P: p.P}
		}
		return undecided, nil
	}
}
