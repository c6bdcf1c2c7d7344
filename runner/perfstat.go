package runner

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/internal/safefile"
	"github.com/perfbot/perfbot/parse"
)

// DefaultPerfEvents are the events perf stat counts unless a suite names
// others: two hardware counters (often <not supported> in virtual
// machines) and two software ones that always work.
var DefaultPerfEvents = []string{"cycles", "instructions", "context-switches", "task-clock"}

// perfStat wraps a suite's commands in perf stat and turns the counters
// into results of the same variant.
type perfStat struct {
	events []string
	// file is where perf stat writes its counters (-o), one per side.
	file string
	// missing names the counters perf reported as <not supported> or
	// <not counted>, so that the report says so once.
	missing map[string]bool
	// modified names the events perf counted with a modifier it added
	// itself, such as ":u" (user space only) for an unprivileged user.
	modified map[string]bool
}

func newPerfStat(suite *config.Suite, dir string) *perfStat {
	ev := suite.PerfEvents
	if len(ev) == 0 {
		ev = DefaultPerfEvents
	}
	return &perfStat{events: ev, file: filepath.Join(dir, "perf-stat.csv"), missing: map[string]bool{}, modified: map[string]bool{}}
}

// perfAvailable reports whether the perf binary is on PATH.
func perfAvailable() bool {
	_, err := exec.LookPath("perf")
	return err == nil
}

// wrap returns the argv running cmd under perf stat in CSV mode.
func (p *perfStat) wrap(cmd string) []string {
	_ = os.Remove(p.file)
	return []string{"perf", "stat", "-x,", "-o", p.file, "-e", strings.Join(p.events, ","), "--", "/bin/sh", "-c", cmd}
}

// results reads the counters of the last wrapped command. Each counter
// becomes a result named after the suite, with the matrix point's
// parameters, the event as its unit ("task-clock-msec" for a time), lower
// being better.
func (p *perfStat) results(ctx context.Context, suite *config.Suite, pt []config.Param, name string) ([]*bench.Result, error) {
	// The scratch directory is lent to the sandbox: the command could
	// have put a link or a huge file where perf stat writes.
	data, err := safefile.ReadFile(filepath.Dir(p.file), filepath.Base(p.file), safefile.MaxResult)
	if err != nil {
		return nil, fmt.Errorf("perf stat output %w", err)
	}
	p.noteMissing(data)
	rs, err := parse.Bytes(ctx, data, name, parse.PerfStatCSV{}.Name())
	if err != nil {
		return nil, err
	}
	var out []*bench.Result
	for _, r := range rs {
		event, mod, _ := strings.Cut(r.Benchmark, ":")
		if mod != "" && !p.asked(r.Benchmark) {
			p.modified[r.Benchmark] = true
		}
		unit := event
		switch r.Unit {
		case "", "count", r.Benchmark, event:
		default:
			unit += "-" + r.Unit
		}
		out = append(out, &bench.Result{
			Benchmark: suite.Name,
			Group:     "perf stat",
			Params:    withMatrix(pt, nil),
			Unit:      strings.ReplaceAll(unit, " ", "-"),
			Metric:    r.Metric,
			Better:    bench.LowerIsBetter,
			Samples:   r.Samples,
			Summary:   r.Summary,
			Source:    r.Source,
		})
		if r.Metric != "" {
			out[len(out)-1].Better = r.Better
		}
	}
	return out, nil
}

// noteMissing records the events perf could not count.
func (p *perfStat) noteMissing(data []byte) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		if !strings.Contains(line, "<not supported>") && !strings.Contains(line, "<not counted>") {
			continue
		}
		f := strings.Split(line, ",")
		if len(f) >= 3 && f[2] != "" {
			event, _, _ := strings.Cut(f[2], ":")
			p.missing[event] = true
		}
	}
}

// asked reports whether the suite named the event with this modifier.
func (p *perfStat) asked(event string) bool {
	for _, e := range p.events {
		if e == event {
			return true
		}
	}
	return false
}

// warning says which counters were unavailable or restricted, or "".
func (p *perfStat) warning(suite string) string {
	var ws []string
	if len(p.modified) > 0 {
		var mods []string
		for e := range p.modified {
			mods = append(mods, e)
		}
		sort.Strings(mods)
		ws = append(ws, fmt.Sprintf("suite %s: perf stat counted %s: user space only, as this machine's perf_event_paranoid allows "+
			"the benchmark's unprivileged user, so kernel-side counts such as context switches read 0 "+
			"(sysctl kernel.perf_event_paranoid=1 counts the kernel too)",
			suite, strings.Join(mods, ", ")))
	}
	if len(p.missing) == 0 {
		return strings.Join(ws, "; ")
	}
	var missing, kept []string
	for e := range p.missing {
		missing = append(missing, e)
	}
	sort.Strings(missing)
	for _, e := range p.events {
		if name, _, _ := strings.Cut(e, ":"); !p.missing[name] {
			kept = append(kept, e)
		}
	}
	return strings.Join(append(ws, fmt.Sprintf("suite %s: perf stat could not count %s on this machine (hardware counters are often unavailable in virtual machines); kept %s",
		suite, strings.Join(missing, ", "), strings.Join(kept, ", "))), "; ")
}

// perfMissing is the warning of a suite that asked for perf stat on a
// machine without perf.
func perfMissing(suite *config.Suite) string {
	return fmt.Sprintf("suite %s: perf_stat is set but perf is not installed (Debian: apt-get install linux-perf); ran without counters", suite.Name)
}

func hasWarning(out *Outcome, w string) bool {
	for _, x := range out.Warnings {
		if x == w {
			return true
		}
	}
	return false
}

// perfStatWarning joins what the suite's sides could not count.
func perfStatWarning(suite *config.Suite, runners map[string]suiteSide) string {
	merged := &perfStat{missing: map[string]bool{}, modified: map[string]bool{}}
	for _, ss := range runners {
		cs, ok := ss.(*commandSide)
		if !ok || cs.perf == nil {
			continue
		}
		if merged.events == nil {
			merged.events = cs.perf.events
		}
		for e := range cs.perf.missing {
			merged.missing[e] = true
		}
		for e := range cs.perf.modified {
			merged.modified[e] = true
		}
	}
	return merged.warning(suite.Name)
}
