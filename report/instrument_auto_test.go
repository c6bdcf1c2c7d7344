package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/provenance"
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
	cmp.Provenance.Suites = []provenance.Suite{
		{Name: "a", Instrument: "cpu-sim", InstrumentWhy: noisy},
		{Name: "b", Instrument: "cpu-sim", InstrumentWhy: noisy},
	}
	want := "patch vs base: 1 better, 0 worse, 1 same, 0 noisy; instrument cpu-sim (auto): " + noisy
	if line := SummaryLine(cmp); line != want {
		t.Errorf("summary line\n got %q\nwant %q", line, want)
	}
	cmp.Provenance.Suites = append(cmp.Provenance.Suites, provenance.Suite{Name: "c", Instrument: "walltime", InstrumentWhy: "the host's noise could not be probed"})
	line := SummaryLine(cmp)
	for _, w := range []string{"instrument cpu-sim (auto) for suite a, b: " + noisy, "instrument walltime (auto) for suite c: the host's noise could not be probed"} {
		if !strings.Contains(line, w) {
			t.Errorf("summary line %q lacks %q", line, w)
		}
	}
}

// TestAutoInstrumentInEveryFormat: the instrument auto chose and why reach
// the summary and the provenance of every format, walltime as well as
// cpu-sim, and the short answer's summary.
func TestAutoInstrumentInEveryFormat(t *testing.T) {
	var rs []*bench.Result
	for _, v := range []string{"base", "patch"} {
		for k := range 6 {
			rs = append(rs, &bench.Result{Benchmark: "Query", Unit: "ns/op", Better: bench.LowerIsBetter, Samples: []float64{100 + float64(k)}, Variant: v})
		}
	}
	for _, choice := range []provenance.Suite{
		{Name: "go", Instrument: "walltime", InstrumentWhy: "wall time on this host varied 1.2% during the probe, below the 5% to detect"},
		{Name: "go", Instrument: "walltime", InstrumentWhy: "wall time on this host varied 57% during the probe, above the 5% to detect, but valgrind is not installed"},
		{Name: "go", Instrument: "cpu-sim", InstrumentWhy: "wall time on this host varied 57% during the probe, above the 5% to detect"},
		{Name: "go", Instrument: "cpu-sim", InstrumentWhy: "wall time on this host varied 57% during the probe, above the 5% to detect",
			InstrumentBranch: "main", InstrumentSince: "1a2b3c4d5e6f7a8b9c0d1a2b3c4d5e6f7a8b9c0d"},
	} {
		cmp, err := compare.Compare(rs, compare.Options{Base: "base"})
		if err != nil {
			t.Fatal(err)
		}
		choice.Commands, choice.Rounds = []string{"go test -bench ."}, 6
		cmp.Provenance.Suites = []provenance.Suite{choice}
		want := "instrument " + choice.Instrument + " (auto): " + choice.InstrumentWhy
		if choice.InstrumentSince != "" {
			want = "instrument cpu-sim (auto, kept for branch main since 1a2b3c4d5e6f): " + choice.InstrumentWhy
		}
		for _, format := range AllFormats {
			var b bytes.Buffer
			if err := Render(&b, format, cmp); err != nil {
				t.Fatal(err)
			}
			got := b.String()
			if format == "json" {
				if !strings.Contains(got, `"instrument": "`+choice.Instrument+`"`) || !strings.Contains(got, `"instrument_why": "`+choice.InstrumentWhy+`"`) {
					t.Errorf("json lacks the instrument and why:\n%s", got)
				}
				continue
			}
			// The venues escape the text and the plain one wraps it: the
			// words are compared without escapes, markup and line breaks.
			plain := strings.NewReplacer("\\", "", "*", "", "\u200b", "", "&#39;", "'", "&#43;", "+").Replace(got)
			plain = strings.Join(strings.Fields(plain), " ")
			if n := strings.Count(plain, want); n < 2 {
				t.Errorf("%s: %q appears %d times, want in the summary and the provenance:\n%s", format, want, n, got)
			}
		}
		if a := Brief(cmp); !strings.Contains(a.Summary, want) {
			t.Errorf("brief answer summary %q lacks %q", a.Summary, want)
		}
	}
}
