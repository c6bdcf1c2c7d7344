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
	if err == nil || !strings.Contains(err.Error(), `c.yaml:2:31: suites.a.instrument: expected walltime or cpu-sim or both, got "valgrind"`) {
		t.Errorf("bad instrument: %v", err)
	}
}
