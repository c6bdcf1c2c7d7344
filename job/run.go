package job

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/internal/gitpatch"
	"github.com/perfbot/perfbot/job/jobspec"
	"github.com/perfbot/perfbot/provenance"
	"github.com/perfbot/perfbot/runner"
	"github.com/perfbot/perfbot/store"
)

// Outcome is what a job measured and concluded.
type Outcome struct {
	// Comparison is the verdicts, with every cell's samples, rounds and
	// summary, its failures, warnings and provenance.
	Comparison *compare.Comparison
	// Results are the raw results of every side, in the order measured.
	Results []*bench.Result
	// Profiles are the CPU profiles of go suites with cpuprofile set.
	Profiles []runner.Profile
	// Calibration is what a calibration recorded (Options.Calibrate).
	Calibration *Calibration
	// TemplateDir overrides the embedded report templates in WriteDir
	// (the config's templates folder; Run sets it from Options.Config).
	TemplateDir string
}

// Compared reports whether any benchmark was measured on both sides.
func (o *Outcome) Compared() bool {
	for _, r := range o.Comparison.Rows {
		for _, c := range r.Candidates {
			if c.Presence == compare.Both {
				return true
			}
		}
	}
	return false
}

// Run runs a job: it fetches the patch (Spec.PatchURL), checks out and
// prepares every side in the workspace, runs the suites in the sandbox,
// compares the sides with the noise thresholds learned on this host, and,
// calibrating, records the noise. A failed build or benchmark is reported
// in the comparison's failures; an error means the job could not be done:
// a *RequestError or *runner.PatchError when it cannot be done as asked.
func Run(ctx context.Context, spec jobspec.Spec, o Options) (*Outcome, error) {
	start := time.Now()
	tr := newTracker(o.Progress, o.Config, spec.Suites)
	tr.stage("prepare")
	if o.Alpha == 0 {
		o.Alpha = config.DefaultAlpha
	}
	if o.NoiseFloorPct == 0 {
		o.NoiseFloorPct = config.DefaultNoiseFloorPct
	}
	if o.Method == "" {
		o.Method = compare.MethodPerfbot
	}
	if spec.Bench != "" {
		o.Tune.Bench = spec.Bench
	}
	if o.Calibrate {
		return calibrate(ctx, spec, o, tr)
	}
	patch, cleanup, err := patchFile(ctx, spec)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	opts, sandboxWarning, err := runnerOptions(ctx, spec, &o, patch)
	if err != nil {
		return nil, err
	}
	cmpOpts := compare.Options{Alpha: o.Alpha, NoiseFloorPct: o.NoiseFloorPct, Verdicts: compare.VerdictOptions{Method: o.Method}}
	// Without its history a comparison still stands: say so and go on.
	noise, err := loadNoise(ctx, o.NoiseDB, o.NoiseDriver)
	var noiseWarning string
	if err != nil {
		noiseWarning = "noise thresholds from history not applied: " + err.Error()
		if o.Log != nil {
			fmt.Fprintf(o.Log, "perfbot: %s\n", noiseWarning)
		}
	}
	if noise != nil {
		cmpOpts.Verdicts.History = noise.lookup
	}
	opts.Decide, opts.TargetPct = decide(cmpOpts, o.NoiseFloorPct), o.NoiseFloorPct
	opts.Step = tr.step
	ro, err := runner.Run(ctx, opts)
	if err != nil {
		return nil, err
	}
	countPreparation(&ro.Provenance, start)
	tr.stage("compare")
	cmpOpts.Base, cmpOpts.Candidates = ro.Variants[0], ro.Variants[1:]
	statsStart := time.Now()
	cmp, err := compare.Compare(ro.Results, cmpOpts)
	if err != nil {
		if len(ro.Results) > 0 {
			return nil, err
		}
		// Nothing was measured: still report the failures.
		cmp = &compare.Comparison{Base: ro.Variants[0], Candidates: ro.Variants[1:]}
	}
	cmp.Failures = ro.Failures
	if sandboxWarning != "" {
		cmp.Warnings = append(cmp.Warnings, sandboxWarning)
	}
	cmp.Warnings = append(cmp.Warnings, ro.Warnings...)
	cmp.NoteCuts(ro.Cuts)
	for _, u := range ro.Unfair {
		cmp.NoteUnfair(u.Suite, u.Keys, u.Why)
	}
	if o.Method == compare.MethodPerfbot {
		noise.annotate(cmp)
	}
	if noiseWarning != "" {
		cmp.Warnings = append(cmp.Warnings, noiseWarning)
	}
	cmp.Provenance = ro.Provenance
	cmp.Provenance.Tool = o.Version
	if t := cmp.Provenance.Timing; t != nil {
		t.Add("statistics", provenance.StageOverhead, time.Since(statsStart))
	}
	if !o.NoConfirm && o.Method == compare.MethodPerfbot {
		if err := confirmRegressions(ctx, cmp, opts, cmpOpts, tr); err != nil {
			return nil, err
		}
	}
	if t := cmp.Provenance.Timing; t != nil {
		t.Wall = time.Since(cmp.Provenance.Started).Seconds()
	}
	out := &Outcome{Comparison: cmp, Results: ro.Results, Profiles: ro.Profiles}
	if o.Config != nil {
		out.TemplateDir = o.Config.TemplateDir()
	}
	return out, nil
}

// countPreparation counts the job's time before the runner started
// (fetching the patch, probing the sandbox, loading the noise history) as
// the first overhead stage, and starts the job's wall time at start.
func countPreparation(p *provenance.Record, start time.Time) {
	t := p.Timing
	if t == nil || p.Started.Before(start) {
		return
	}
	prep := provenance.Stage{Name: "job preparation (patch, sandbox, noise history)", Kind: provenance.StageOverhead, Seconds: p.Started.Sub(start).Seconds(), Count: 1}
	t.Stages = append([]provenance.Stage{prep}, t.Stages...)
	p.Started = start
}

// patchFile writes the spec's patch, fetched first when the spec only
// names its URL, into a file for the runner; "" when the spec has none.
func patchFile(ctx context.Context, spec jobspec.Spec) (string, func(), error) {
	none := func() {}
	text := spec.Patch
	if text == "" && spec.PatchURL != "" {
		var err error
		if text, err = FetchPatch(ctx, spec.PatchURL); err != nil {
			return "", none, err
		}
	}
	if text == "" {
		return "", none, nil
	}
	dir, err := os.MkdirTemp("", "perfbot-patch-")
	if err != nil {
		return "", none, err
	}
	cleanup := func() { os.RemoveAll(dir) }
	path := filepath.Join(dir, "job.patch")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		cleanup()
		return "", none, err
	}
	return path, cleanup, nil
}

// Calibration is what a calibration recorded.
type Calibration struct {
	// Host is the host the noise was measured on.
	Host string
	// Deltas are each benchmark's change between the two runs of the
	// baseline.
	Deltas []store.NoiseDelta
	// Past are the latest deltas of each benchmark on Host, Deltas
	// included: what later comparisons learn their thresholds from.
	Past map[store.NoiseKey][]float64
}

// calibrate runs the baseline against itself and records the noise.
func calibrate(ctx context.Context, spec jobspec.Spec, o Options, tr *tracker) (*Outcome, error) {
	if o.NoiseDB == "" {
		return nil, requestf("calibrate: no history database to record the noise in")
	}
	spec.Patch, spec.PatchURL, spec.CandidateRef, spec.CandidateCommit = "", "", "", ""
	o.Candidates = nil
	opts, _, err := runnerOptions(ctx, spec, &o, "")
	if err != nil {
		return nil, err
	}
	opts.BaseName = "base"
	again := runner.Candidate{Name: "base-again", Ref: opts.Base}
	if hasVariants(opts) {
		// Both sides run under the baseline variant's settings.
		base, _, err := runner.VariantCandidates(opts.Suites)
		if err != nil {
			return nil, err
		}
		opts.BaseSettings, again.Settings = base, base
		if base.Ref != "" {
			opts.Base, again.Ref = base.Ref, base.Ref
		}
	}
	opts.Candidates = []runner.Candidate{again}
	opts.Step = tr.step
	// A suite with max_count or a budget samples until the two runs of
	// the baseline are told apart or found the same, by default verdicts.
	opts.Decide = decide(compare.Options{}, 0)
	// Open the store first: a wrong database should not cost a whole run.
	st, err := store.Open(ctx, StoreDriver(o.NoiseDriver, o.NoiseDB), o.NoiseDB)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	ro, err := runner.Run(ctx, opts)
	if err != nil {
		return nil, err
	}
	tr.stage("compare")
	cmp, err := compare.Compare(ro.Results, compare.Options{Base: "base", Candidates: []string{"base-again"},
		Verdicts: compare.VerdictOptions{BootstrapIterations: -1}})
	if err != nil {
		if len(ro.Results) > 0 {
			return nil, err
		}
		cmp = &compare.Comparison{Base: "base", Candidates: []string{"base-again"}}
	}
	cmp.Failures, cmp.Provenance = ro.Failures, ro.Provenance
	cmp.Provenance.Tool = o.Version
	cal := &Calibration{Host: ro.Provenance.Host.Name}
	for i := range cmp.Rows {
		row := &cmp.Rows[i]
		c := row.Candidates[0]
		if c.Presence != compare.Both || math.IsNaN(c.DeltaPct) || math.IsInf(c.DeltaPct, 0) {
			continue
		}
		k, err := store.NoiseKeyOf(row)
		if err != nil {
			return nil, err
		}
		cal.Deltas = append(cal.Deltas, store.NoiseDelta{Key: k, DeltaPct: c.DeltaPct})
	}
	out := &Outcome{Comparison: cmp, Results: ro.Results, Profiles: ro.Profiles, Calibration: cal}
	if len(cal.Deltas) == 0 {
		return out, nil
	}
	tr.stage("store")
	if err := st.AddNoise(ctx, cal.Host, time.Now(), cal.Deltas); err != nil {
		return nil, err
	}
	if cal.Past, err = st.Noise(ctx, cal.Host, noiseKeep); err != nil {
		return nil, err
	}
	return out, nil
}

// hasVariants reports whether a suite compares settings variants.
func hasVariants(opts runner.Options) bool {
	for _, s := range opts.Suites {
		if len(s.Variants) > 0 {
			return true
		}
	}
	return false
}

// IsRequestError reports whether err means the job cannot be done as
// asked: a patch that does not apply or names a malformed base-commit, a
// suite the config lacks, a pinned commit the repository no longer has.
func IsRequestError(err error) bool {
	var re *RequestError
	var pe *runner.PatchError
	var be *gitpatch.BaseCommitError
	var me *runner.MissingCommitError
	return errors.As(err, &re) || errors.As(err, &pe) || errors.As(err, &be) || errors.As(err, &me)
}
