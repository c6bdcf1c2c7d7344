package bisect

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/job"
	"github.com/perfbot/perfbot/job/jobspec"
	"github.com/perfbot/perfbot/runner"
)

// LocalOptions say how Local runs its comparisons.
type LocalOptions struct {
	// Job are the options of every comparison; its candidates are set
	// for each.
	Job job.Options
	// Suites are the suites run.
	Suites []string
	// Search are the search's options; a MinChangePct of 0 takes the
	// config's service.bisect.min_change (Job.Config), if any.
	Search Options
	// Progress, when set, is told each comparison as it starts.
	Progress io.Writer
	// Failures is told each comparison's failures.
	Failures io.Writer
	// JobError, when set, is applied to the error of a comparison that
	// could not run.
	JobError func(error) error
}

// An EmptySeriesError says that head has no commits after base on its
// first-parent line.
type EmptySeriesError struct{ Base, Head string }

func (e *EmptySeriesError) Error() string {
	return fmt.Sprintf("%s has no commits after %s on its first-parent line", e.Head, e.Base)
}

// Local compares baseRef with head on this host and, for each benchmark
// that moved, finds the commit of the series (the first-parent commits
// baseRef..head) responsible, running each comparison with job.Run. A
// base that is not an ancestor of head is replaced by the commit the
// series starts from, so that only the series is measured.
func Local(ctx context.Context, baseRef, head string, o LocalOptions) (*Result, error) {
	if cfg := o.Job.Config; o.Search.MinChangePct == 0 && cfg != nil && cfg.Service.Bisect != nil {
		o.Search.MinChangePct = float64(cfg.Service.Bisect.MinChange)
	}
	cacheDir, err := o.Job.Cache()
	if err != nil {
		return nil, err
	}
	ws, err := runner.OpenWorkspace(ctx, o.Job.RepoSource(), cacheDir)
	if err != nil {
		return nil, err
	}
	base, err := ws.Resolve(ctx, baseRef)
	if err != nil {
		ws.Close()
		return nil, err
	}
	base, series, err := Series(ctx, ws, base, head)
	ws.Close() // the runner locks it again for each comparison
	if err != nil {
		return nil, err
	}
	if len(series) == 0 {
		return nil, &EmptySeriesError{Base: baseRef, Head: head}
	}
	measure := func(ctx context.Context, from, to string, names []string) (*compare.Comparison, error) {
		if o.Progress != nil {
			what := "every benchmark"
			if len(names) > 0 {
				what = strings.Join(names, ", ")
			}
			fmt.Fprintf(o.Progress, "perfbot: bisect: %.12s against %.12s: %s\n", from, to, what)
		}
		jo := o.Job
		if filter := BenchFilter(names); filter != "" {
			jo.Tune.Bench = filter
		}
		jo.Candidates = []runner.Candidate{{Name: "after", Ref: to}}
		outcome, err := job.Run(ctx, jobspec.Spec{Suites: o.Suites, BaseRef: from, Source: "cli"}, jo)
		if err != nil {
			if o.JobError != nil {
				err = o.JobError(err)
			}
			return nil, err
		}
		if o.Failures != nil {
			for _, fl := range outcome.Comparison.Failures {
				fmt.Fprintf(o.Failures, "perfbot: %.12s..%.12s: %s %s: %s\n", from, to, fl.Variant, fl.Stage, fl.Message)
			}
		}
		if !outcome.Compared() {
			return nil, errors.New("nothing could be compared: see the failures above")
		}
		return outcome.Comparison, nil
	}
	overall, err := measure(ctx, base, series[len(series)-1].Hash, nil)
	if err != nil {
		return nil, fmt.Errorf("compare base with head: %w", err)
	}
	return Search(ctx, base, series, overall, measure, o.Search)
}
