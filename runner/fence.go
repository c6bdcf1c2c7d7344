package runner

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/provenance"
	"github.com/perfbot/perfbot/sandbox"
)

// maxReruns is how many times a round is run again when the other sides
// used too much CPU during it, before it is kept and counted as unfair.
const maxReruns = 2

// A fence keeps each side of a suite with setup, whose sides keep
// processes between their rounds (the servers, and whatever a patch left
// running in them), off the CPU outside its own rounds: from the first
// round to the last, every side's session is held (frozen, where a cgroup
// freezer is available) except the one whose round runs, and the CPU time
// the held sessions use anyway is counted. A round during which the other
// sides used more than provenance.ForeignCPUBoundPct of its wall time (and
// more than the count can resolve) is run again, up to maxReruns times;
// one that still is, is kept and makes the suite unfair.
//
// Suites without setup need no fence: each of their commands runs in a
// sandbox of its own, whose processes all end with it.
type fence struct {
	suite    string
	sessions map[string]*sandbox.Session
	holds    map[string]*sandbox.Hold
	prov     *provenance.Suite
	progress io.Writer
	foreign  time.Duration
	measured bool
	// troubles are the distinct reasons a hold could not freeze a
	// session that has a freezer.
	troubles []string
}

// newFence returns the fence of a suite's rounds and holds every side's
// session. The caller must call release before the sessions' teardown.
func newFence(suite *config.Suite, ready []*side, runs map[string]*variantRun, prov *provenance.Suite, progress io.Writer) *fence {
	f := &fence{suite: suite.Name, sessions: map[string]*sandbox.Session{}, holds: map[string]*sandbox.Hold{}, prov: prov, progress: progress}
	if suite.Setup == "" || len(ready) < 2 {
		return f
	}
	// Every side whose session started, ready or not: a setup that
	// failed may have left a server running.
	var names []string
	for _, name := range slices.Sorted(maps.Keys(runs)) {
		if vr := runs[name]; vr.session != nil {
			f.sessions[name] = vr.session
			names = append(names, name)
		}
	}
	if len(names) > 0 {
		prov.Isolation = f.sessions[names[0]].Isolation()
	}
	for _, n := range names {
		f.holds[n] = f.sessions[n].Hold()
	}
	return f
}

// note keeps what a hold said about freezing.
func (f *fence) note(r sandbox.Released) {
	if r.Err != nil && strings.HasPrefix(f.prov.Isolation, "frozen") && !slices.Contains(f.troubles, r.Err.Error()) {
		f.troubles = append(f.troubles, r.Err.Error())
	}
}

// round runs one side's round with its own session let go and the other
// sides held. It returns the results of the round that is kept.
func (f *fence) round(ctx context.Context, name string, run func() ([]*bench.Result, []string, error)) ([]*bench.Result, []string, error) {
	if len(f.holds) == 0 {
		return run()
	}
	if h := f.holds[name]; h != nil {
		f.note(h.Release())
		delete(f.holds, name)
		defer func() {
			if s := f.sessions[name]; s != nil {
				f.holds[name] = s.Hold()
			}
		}()
	}
	for attempt := 0; ; attempt++ {
		before := map[string]sandbox.Released{}
		for other, h := range f.holds {
			before[other] = h.Used()
		}
		start := time.Now()
		results, units, err := run()
		wall := time.Since(start)
		var used, resolution time.Duration
		measured := false
		for other, h := range f.holds {
			r := h.Used()
			f.note(r)
			if r.Measured && before[other].Measured {
				measured = true
				used += max(r.CPU-before[other].CPU, 0)
				resolution = max(resolution, r.Resolution)
			}
		}
		if measured {
			f.measured = true
			f.foreign += used
		}
		if err != nil || !measured || ctx.Err() != nil {
			return results, units, err
		}
		bound := max(wall*provenance.ForeignCPUBoundPct/100, resolution)
		if used <= bound {
			return results, units, nil
		}
		if attempt < maxReruns {
			f.prov.Rerun++
			fmt.Fprintf(f.progress, "perfbot: suite %s: the other sides used %s of CPU during %s's round of %s (more than %d%%): running it again\n",
				f.suite, used.Round(time.Millisecond), name, wall.Round(time.Millisecond), provenance.ForeignCPUBoundPct)
			continue
		}
		f.prov.Unfair++
		fmt.Fprintf(f.progress, "perfbot: suite %s: the other sides used %s of CPU during %s's round of %s, again: round kept, the suite could not be measured fairly\n",
			f.suite, used.Round(time.Millisecond), name, wall.Round(time.Millisecond))
		return results, units, nil
	}
}

// release lets every side go again (for the teardown, and the rounds of
// CPU profiles); it is safe to call more than once.
func (f *fence) release() {
	for name, h := range f.holds {
		f.note(h.Release())
		delete(f.holds, name)
	}
}

// finish writes the figures into the suite's provenance and, when rounds
// stayed unfair, records which results they tainted.
func (f *fence) finish(results []*bench.Result, out *Outcome) {
	f.release()
	if len(f.sessions) == 0 {
		return
	}
	if f.measured {
		ms := float64(f.foreign) / float64(time.Millisecond)
		f.prov.ForeignCPUMs = &ms
	}
	for _, t := range f.troubles {
		out.Warnings = append(out.Warnings, fmt.Sprintf("suite %s: a side could not be frozen during another side's round: %s", f.suite, t))
	}
	if f.prov.Unfair == 0 {
		return
	}
	u := Unfair{Suite: f.suite, Why: fmt.Sprintf("in %d round(s) the other sides used more than %d%% of the round's time on the CPU, even when run again %d times",
		f.prov.Unfair, provenance.ForeignCPUBoundPct, maxReruns)}
	seen := map[string]bool{}
	for _, r := range results {
		if k := r.Key(); !seen[k] {
			seen[k] = true
			u.Keys = append(u.Keys, k)
		}
	}
	out.Unfair = append(out.Unfair, u)
}

// Unfair names the results of a suite that could not be measured fairly:
// the other sides used the CPU during its rounds beyond the bound.
type Unfair struct {
	Suite string
	// Keys are the results' keys (bench.Result.Key).
	Keys []string
	Why  string
}
