package config

import (
	"strings"
	"testing"
)

func TestInstrument(t *testing.T) {
	c, err := Parse([]byte("instrument: both\nsuites:\n  a: {preset: go}\n  b: {preset: go, instrument: cpu-sim}\n"), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if c.Suites[0].Instrument != InstrumentBoth || c.Suites[1].Instrument != InstrumentCPUSim {
		t.Errorf("instruments %q, %q", c.Suites[0].Instrument, c.Suites[1].Instrument)
	}
	if wall, sim := c.Suites[1].Instruments(); wall || !sim {
		t.Errorf("cpu-sim: wall %v, sim %v", wall, sim)
	}
	if wall, sim := (&Suite{}).Instruments(); !wall || sim {
		t.Errorf("default: wall %v, sim %v", wall, sim)
	}
	_, err = Parse([]byte("suites:\n  a: {preset: go, instrument: valgrind}\n"), "c.yaml")
	if err == nil || !strings.Contains(err.Error(), `c.yaml:2:31: suites.a.instrument: expected walltime or cpu-sim or both or auto, got "valgrind"`) {
		t.Errorf("bad instrument: %v", err)
	}
}

func TestAutoInstrument(t *testing.T) {
	c, err := Parse([]byte("suites:\n  a: {preset: go}\n  e: {preset: go, instrument: auto}\n  b: {preset: go, instrument: walltime}\n  c: {command: 'echo x', parser: gobench}\n  d: {command: 'echo x', parser: gobench, instrument: auto}\n"), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// A Go suite is auto unless it says otherwise; a command suite is not.
	want := map[string]bool{"a": true, "b": false, "c": false, "d": true, "e": true}
	for i := range c.Suites {
		if got := c.Suites[i].AutoInstrument(); got != want[c.Suites[i].Name] {
			t.Errorf("suite %s (instrument %q): auto %v, want %v", c.Suites[i].Name, c.Suites[i].Instrument, got, !got)
		}
	}
	// The config's own instrument is every suite's default, Go suites too.
	c, err = Parse([]byte("instrument: walltime\nsuites:\n  a: {preset: go}\n"), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if c.Suites[0].AutoInstrument() || c.Suites[0].Instrument != InstrumentWallTime {
		t.Errorf("instrument: walltime: go suite instrument %q", c.Suites[0].Instrument)
	}
	if err := ValidInstrument("auto"); err != nil {
		t.Errorf("auto: %v", err)
	}
}
