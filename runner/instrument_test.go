package runner

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/internal/gitrepo"
	"github.com/perfbot/perfbot/provenance"
)

func TestChooseInstrument(t *testing.T) {
	probe := func(spread float64) *provenance.HostNoise {
		return &provenance.HostNoise{LoopSpreadPct: spread, LoopMedian: "5ms", Runs: probeRuns}
	}
	for _, tt := range []struct {
		name        string
		noise       *provenance.HostNoise
		min         float64
		missing     string
		instr, want string
	}{
		{"quiet", probe(1.2), 5, "", config.InstrumentWallTime, "wall time on this host varied 1.2% during the probe, below the 5% to detect"},
		{"noisy", probe(57.3), 5, "", config.InstrumentCPUSim, "wall time on this host varied 57% during the probe, above the 5% to detect"},
		{"finer change", probe(3), 2, "", config.InstrumentCPUSim, "wall time on this host varied 3.0% during the probe, above the 2% to detect"},
		{"no valgrind", probe(57.3), 5, "instrument cpu-sim needs valgrind, which is not installed", config.InstrumentWallTime,
			"wall time on this host varied 57% during the probe, above the 5% to detect, but instrument cpu-sim needs valgrind, which is not installed"},
		{"no probe", nil, 5, "", config.InstrumentWallTime, "the host's noise could not be probed"},
	} {
		instr, why := chooseInstrument(tt.noise, tt.min, tt.missing)
		if instr != tt.instr || why != tt.want {
			t.Errorf("%s: %s: %q\nwant %s: %q", tt.name, instr, why, tt.instr, tt.want)
		}
	}
}

// TestProbeThenChoose runs the real noise probe and the choice on this
// host: whatever the load, the choice is one of the two instruments with
// a reason quoting the probe's spread.
func TestProbeThenChoose(t *testing.T) {
	n := probeNoise(context.Background())
	instr, why := chooseInstrument(n, 5, valgrindMissing())
	t.Logf("probe %+v: %s: %s", n, instr, why)
	if instr != config.InstrumentWallTime && instr != config.InstrumentCPUSim {
		t.Errorf("instrument %q", instr)
	}
	if (n.LoopSpreadPct < 5) != (instr == config.InstrumentWallTime) && valgrindMissing() == "" {
		t.Errorf("spread %.1f%% chose %s", n.LoopSpreadPct, instr)
	}
}

// TestAutoInstrumentMeasuresWithItsChoice runs a go suite with instrument
// auto for real: the provenance names the instrument the probe chose and
// why, and the rounds measured with that instrument alone.
func TestAutoInstrumentMeasuresWithItsChoice(t *testing.T) {
	r := gitrepo.New(t)
	r.Commit("work", gitrepo.WorkModule(20000, true))
	opts := testOptions(t, r.Dir, Candidate{Name: "again", Ref: "HEAD"})
	opts.Suites = []config.Suite{{Name: "go", Preset: "go", Instrument: config.InstrumentAuto, Count: 2, MaxCount: 2, Go: config.GoOptions{Benchtime: "20x"}}}
	opts.SimWork = 5 * time.Millisecond
	out, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Failures) > 0 {
		t.Fatalf("failures: %+v", out.Failures)
	}
	if len(out.Provenance.Suites) != 1 {
		t.Fatalf("suites %+v", out.Provenance.Suites)
	}
	s := out.Provenance.Suites[0]
	t.Logf("instrument %s: %s", s.Instrument, s.InstrumentWhy)
	if !strings.Contains(s.InstrumentWhy, "wall time on this host varied") {
		t.Errorf("why %q does not quote the probe", s.InstrumentWhy)
	}
	units := map[string]bool{}
	for _, res := range out.Results {
		units[res.Unit] = true
	}
	switch s.Instrument {
	case config.InstrumentCPUSim:
		if units["ns/op"] || !units["instructions/op"] {
			t.Errorf("cpu-sim chosen, units measured %v", units)
		}
	case config.InstrumentWallTime:
		if !units["ns/op"] || units["instructions/op"] {
			t.Errorf("walltime chosen, units measured %v", units)
		}
	default:
		t.Errorf("instrument %q", s.Instrument)
	}
}

// TestKeptInstrument: a suite keeps the instrument named for it, and not
// one it cannot measure with or that is no instrument.
func TestKeptInstrument(t *testing.T) {
	keep := []KeptInstrument{
		{Suite: "a", Instrument: config.InstrumentWallTime, Branch: "main", Since: "c1"},
		{Suite: "b", Instrument: config.InstrumentCPUSim, Branch: "main", Since: "c1"},
		{Suite: "c", Instrument: config.InstrumentAuto},
	}
	if k, ok := keptInstrument(keep, "a"); !ok || k.Instrument != config.InstrumentWallTime || k.Since != "c1" {
		t.Errorf("suite a keeps %+v, %v", k, ok)
	}
	if _, ok := keptInstrument(keep, "b"); ok != (valgrindMissing() == "") {
		t.Errorf("suite b keeps cpu-sim: %v, with valgrind missing %q", ok, valgrindMissing())
	}
	for _, s := range []string{"c", "d"} {
		if k, ok := keptInstrument(keep, s); ok {
			t.Errorf("suite %s keeps %+v", s, k)
		}
	}
}
