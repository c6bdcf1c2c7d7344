package job

import (
	"errors"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/provenance"
)

func TestSelectSuites(t *testing.T) {
	cfg := &config.Config{File: "c.yaml", Suites: config.Suites{{Name: "a", Preset: "go"}, {Name: "b", Command: "true", Instrument: config.InstrumentBoth}}}
	suites, err := selectSuites(cfg, nil, Tuning{Instrument: config.InstrumentCPUSim, Count: 3, Bench: "Work"})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range suites {
		if s.Instrument != config.InstrumentCPUSim || s.Count != 3 {
			t.Errorf("suite %s: instrument %q, count %d; want cpu-sim, 3", s.Name, s.Instrument, s.Count)
		}
	}
	if suites[0].Go.Bench != "Work" || suites[1].Go.Bench != "" {
		t.Errorf("bench = %q, %q; want it on the go suite only", suites[0].Go.Bench, suites[1].Go.Bench)
	}
	_, err = selectSuites(cfg, nil, Tuning{Instrument: "perf"})
	var re *RequestError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), `instrument "perf"`) {
		t.Errorf("instrument perf: %v", err)
	}
	_, err = selectSuites(cfg, []string{"c"}, Tuning{})
	if !IsRequestError(err) || !strings.Contains(err.Error(), `no suite "c" in c.yaml (it has: a, b)`) {
		t.Errorf("suite c: %v", err)
	}
	suites, err = selectSuites(nil, nil, Tuning{})
	if err != nil || len(suites) != 1 || suites[0].Preset != "go" {
		t.Errorf("no config: %+v, %v; want the go preset", suites, err)
	}
	// The default Go suite is auto, unless the config or the request
	// says which instrument.
	for _, c := range []struct {
		cfg  *config.Config
		tune Tuning
		want string
	}{
		{nil, Tuning{}, config.InstrumentAuto},
		{&config.Config{Instrument: config.InstrumentWallTime}, Tuning{}, config.InstrumentWallTime},
		{nil, Tuning{Instrument: config.InstrumentWallTime}, config.InstrumentWallTime},
	} {
		suites, err = selectSuites(c.cfg, nil, c.tune)
		if err != nil || suites[0].Instrument != c.want {
			t.Errorf("default suite (config %+v, tuning %+v): instrument %q, %v; want %s", c.cfg, c.tune, suites[0].Instrument, err, c.want)
		}
	}
}

// TestConfirmationKeepsAutoChoice: the confirmation rerun of a suite whose
// instrument was auto measures with what the first run chose, and leaves
// the other suites and the caller's suites as they were.
func TestConfirmationKeepsAutoChoice(t *testing.T) {
	suites := []config.Suite{
		{Name: "go", Preset: "go", Instrument: config.InstrumentAuto},
		{Name: "wall", Preset: "go", Instrument: config.InstrumentWallTime},
		{Name: "unprobed", Preset: "go", Instrument: config.InstrumentAuto},
	}
	prov := []provenance.Suite{
		{Name: "go", Instrument: config.InstrumentCPUSim, InstrumentWhy: "wall time on this host varied 57% during the probe, above the 5% to detect"},
		{Name: "wall"},
	}
	got := keepAutoChoices(suites, prov)
	want := []string{config.InstrumentCPUSim, config.InstrumentWallTime, config.InstrumentAuto}
	for i := range got {
		if got[i].Instrument != want[i] {
			t.Errorf("suite %s: instrument %q, want %q", got[i].Name, got[i].Instrument, want[i])
		}
	}
	if suites[0].Instrument != config.InstrumentAuto {
		t.Errorf("the caller's suite changed to %q", suites[0].Instrument)
	}
}
