package track

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/job/jobspec"
	"github.com/perfbot/perfbot/provenance"
	"github.com/perfbot/perfbot/store"
	"github.com/perfbot/perfbot/track/changepoint"
)

// KeptInstruments are the instruments a track's next run keeps for its
// suites set to auto: those the track's last finished run had chosen (or
// kept) under auto, named with the branch and the commit whose run chose
// them. A track with no such run keeps none, and its next run probes the
// host and chooses.
func KeptInstruments(ctx context.Context, st *store.Store, track, branch string) ([]jobspec.KeptInstrument, error) {
	last, err := st.LastDoneRun(ctx, KeyPrefix(track))
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if len(last.Provenance) == 0 {
		return nil, nil
	}
	var prov provenance.Record
	if err := json.Unmarshal(last.Provenance, &prov); err != nil {
		return nil, fmt.Errorf("track %s: provenance of run %d: %w", track, last.ID, err)
	}
	var keep []jobspec.KeptInstrument
	seen := map[string]bool{}
	for _, s := range prov.Suites {
		if s.InstrumentWhy == "" || s.Instrument == "" || seen[s.Name] {
			continue
		}
		seen[s.Name] = true
		since := s.InstrumentSince
		if since == "" {
			since = last.CandidateCommit
		}
		keep = append(keep, jobspec.KeptInstrument{Suite: s.Name, Instrument: s.Instrument, Why: s.InstrumentWhy,
			Branch: branch, Since: since})
	}
	return keep, nil
}

// Branch picks the branch to track: branch, with its config entry if the
// config tracks it, else the config's only tracked branch, else
// project.branch. The error says which branches to choose from.
func Branch(cfg *config.Config, branch string) (config.TrackedBranch, error) {
	if cfg == nil {
		return config.TrackedBranch{Branch: branch}, nil
	}
	for _, b := range cfg.Track.Branches {
		if b.Branch == branch || branch == "" && len(cfg.Track.Branches) == 1 {
			return b, nil
		}
	}
	if branch == "" && len(cfg.Track.Branches) > 1 {
		var names []string
		for _, b := range cfg.Track.Branches {
			names = append(names, b.Branch)
		}
		return config.TrackedBranch{}, fmt.Errorf("give --branch: %s tracks %s", cfg.File, strings.Join(names, ", "))
	}
	if branch == "" {
		branch = cfg.Project.Branch
	}
	return config.TrackedBranch{Branch: branch}, nil
}

// DetectOptions are the detector's options: alpha and minChange (0: not
// given) over the config's track section over the defaults.
func DetectOptions(cfg *config.Config, alpha, minChange float64) (changepoint.Options, error) {
	var o changepoint.Options
	if cfg != nil {
		o.Alpha, o.MinChangePct, o.Test = cfg.Track.Alpha, cfg.Track.MinChange, changepoint.Test(cfg.Track.Test)
	}
	if alpha != 0 {
		if !(alpha > 0 && alpha < 1) {
			return o, fmt.Errorf("--alpha %v: want a level between 0 and 1", alpha)
		}
		o.Alpha = alpha
	}
	if minChange != 0 {
		if !(minChange > 0) {
			return o, fmt.Errorf("--min-change %v: want a positive percentage", minChange)
		}
		o.MinChangePct = minChange
	}
	return o, nil
}

// Resolve picks the branch to track (see Branch) and the detector's
// options (see DetectOptions) from a command line's values over cfg's.
// The error says which value to give or fix.
func Resolve(cfg *config.Config, branch string, alpha, minChange float64) (config.TrackedBranch, changepoint.Options, error) {
	tb, err := Branch(cfg, branch)
	if err != nil {
		return tb, changepoint.Options{}, err
	}
	if tb.Branch == "" {
		return tb, changepoint.Options{}, errors.New("give --branch (no tracked branch or project.branch in the config)")
	}
	dopts, err := DetectOptions(cfg, alpha, minChange)
	return tb, dopts, err
}
