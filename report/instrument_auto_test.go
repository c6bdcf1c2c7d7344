package report

import (
	"strings"
	"testing"

	"github.com/perfbot/perfbot/compare"
)

// TestSummaryLineNamesAutoInstrument: the answer's first line names the
// instrument auto chose and why, once for suites that chose alike, per
// suite when they differ, and not at all without auto.
func TestSummaryLineNamesAutoInstrument(t *testing.T) {
	cmp := &compare.Comparison{Base: "base", Summary: []compare.Tally{{Variant: "patch", Better: 1, Same: 1}}}
	if line := SummaryLine(cmp); strings.Contains(line, "instrument") {
		t.Errorf("without auto: %q", line)
	}
	noisy := "wall time on this host varied 57% during the probe, above the 5% to detect"
	cmp.Provenance.Suites = []compare.Suite{
		{Name: "a", Instrument: "cpu-sim", InstrumentWhy: noisy},
		{Name: "b", Instrument: "cpu-sim", InstrumentWhy: noisy},
	}
	want := "patch vs base: 1 better, 0 worse, 1 same, 0 noisy; instrument cpu-sim (auto): " + noisy
	if line := SummaryLine(cmp); line != want {
		t.Errorf("summary line\n got %q\nwant %q", line, want)
	}
	cmp.Provenance.Suites = append(cmp.Provenance.Suites, compare.Suite{Name: "c", Instrument: "walltime", InstrumentWhy: "the host's noise could not be probed"})
	line := SummaryLine(cmp)
	for _, w := range []string{"instrument cpu-sim (auto) for suite a, b: " + noisy, "instrument walltime (auto) for suite c: the host's noise could not be probed"} {
		if !strings.Contains(line, w) {
			t.Errorf("summary line %q lacks %q", line, w)
		}
	}
}
