package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/config"
)

// perfCSV is perf stat -x, output of a machine without hardware counters
// (a virtual machine), as perf 6.1 writes it with -o.
const perfCSV = `# started on Mon Nov 30 09:06:50 2026

<not supported>,,cycles,0,100.00,,
<not supported>,,instructions,0,100.00,,
412,,context-switches,341969,100.00,0.000,/sec
51.34,msec,task-clock,341969,100.00,0.558,CPUs utilized
`

func TestPerfStatResults(t *testing.T) {
	dir := t.TempDir()
	suite := &config.Suite{Name: "pgbench", PerfStat: true}
	p := newPerfStat(suite, dir)
	argv := p.wrap("pgbench -c 4")
	if got := strings.Join(argv, " "); got != "perf stat -x, -o "+filepath.Join(dir, "perf-stat.csv")+" -e cycles,instructions,context-switches,task-clock -- /bin/sh -c pgbench -c 4" {
		t.Errorf("wrap = %q", got)
	}
	if err := os.WriteFile(p.file, []byte(perfCSV), 0o644); err != nil {
		t.Fatal(err)
	}
	pt := []config.Param{{Name: "clients", Values: []string{"4"}}}
	rs, err := p.results(context.Background(), suite, pt, "round 1")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, r := range rs {
		if r.Benchmark != "pgbench" || r.Better != bench.LowerIsBetter {
			t.Errorf("result %+v: want benchmark pgbench, lower is better", r)
		}
		if v, _ := r.Params.Get("clients"); v != "4" {
			t.Errorf("result %s: params %v, want clients=4", r.Unit, r.Params)
		}
		if len(r.Samples) == 1 {
			got[r.Unit] = r.Samples[0]
		}
	}
	if got["context-switches"] != 412 || got["task-clock-msec"] != 51.34 || len(got) != 2 {
		t.Errorf("counters %v, want context-switches 412 and task-clock-msec 51.34", got)
	}
	w := p.warning("pgbench")
	if !strings.Contains(w, "could not count cycles, instructions") || !strings.Contains(w, "kept context-switches, task-clock") {
		t.Errorf("warning %q", w)
	}
}

// perfCSVUser is the same for an unprivileged user under
// perf_event_paranoid 2: perf adds ":u" to every event.
const perfCSVUser = `<not supported>,,cycles:u,0,100.00,,
<not supported>,,instructions:u,0,100.00,,
7,,context-switches:u,2019,100.00,0.000,/sec
2.01,msec,task-clock:u,2019,100.00,0.558,CPUs utilized
`

func TestPerfStatUserOnly(t *testing.T) {
	suite := &config.Suite{Name: "s", PerfStat: true}
	p := newPerfStat(suite, t.TempDir())
	if err := os.WriteFile(p.file, []byte(perfCSVUser), 0o644); err != nil {
		t.Fatal(err)
	}
	rs, err := p.results(context.Background(), suite, nil, "round 1")
	if err != nil {
		t.Fatal(err)
	}
	var units []string
	for _, r := range rs {
		units = append(units, r.Unit)
	}
	if strings.Join(units, ",") != "context-switches,task-clock-msec" {
		t.Errorf("units %v, want the events without perf's modifier", units)
	}
	w := p.warning("s")
	for _, want := range []string{"user space only", "could not count cycles, instructions", "kept context-switches, task-clock"} {
		if !strings.Contains(w, want) {
			t.Errorf("warning %q lacks %q", w, want)
		}
	}
}
