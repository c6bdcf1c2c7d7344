package main

import (
	"strings"
	"testing"

	"github.com/perfbot/perfbot/config"
)

func TestInstrumentFlag(t *testing.T) {
	cfg := &config.Config{File: "c.yaml", Suites: config.Suites{{Name: "a", Preset: "go"}, {Name: "b", Command: "true", Instrument: config.InstrumentBoth}}}
	f := &compareFlags{instrument: config.InstrumentCPUSim}
	suites, err := f.selectSuites(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range suites {
		if s.Instrument != config.InstrumentCPUSim {
			t.Errorf("suite %s: instrument %q, want cpu-sim", s.Name, s.Instrument)
		}
	}
	f.instrument = "perf"
	if _, err := f.selectSuites(cfg); err == nil || !strings.Contains(err.Error(), `instrument "perf"`) {
		t.Errorf("--instrument perf: %v", err)
	}
}
