package compare

import (
	"strings"
	"testing"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/stats"
)

func simResult(variant, name, unit, metric string, samples ...float64) *bench.Result {
	return &bench.Result{Benchmark: name, Variant: variant, Unit: unit, Metric: metric, Samples: samples}
}

func TestSimulatedTolerance(t *testing.T) {
	for _, tc := range []struct {
		name       string
		base, cand []float64
		want       Verdict
	}{
		// Spread 0.02%: tolerance is the 0.1% floor; a 1% change is
		// found with 2 rounds a side.
		{"1% slower", []float64{100000, 100020}, []float64{101000, 101010}, Worse},
		{"0.5% faster", []float64{100000, 100010, 100005}, []float64{99500, 99502, 99490}, Better},
		{"within floor", []float64{100000, 100010}, []float64{100050, 100040}, Same},
		// Spread 1%: tolerance 3%; a 2% change is within it.
		{"within spread", []float64{100000, 101000}, []float64{102000, 102500}, Same},
		// Spread 2%: tolerance 6%, beyond the 5% noise floor.
		{"noisy", []float64{100000, 102000}, []float64{100500, 101000}, Noisy},
		// One round a side: the tolerance is 1%.
		{"single round", []float64{100000}, []float64{100900}, Same},
		{"single round changed", []float64{100000}, []float64{101500}, Worse},
	} {
		var rs []*bench.Result
		for _, v := range tc.base {
			rs = append(rs, simResult("base", "X", "instructions/op", bench.Simulated, v))
		}
		for _, v := range tc.cand {
			rs = append(rs, simResult("new", "X", "instructions/op", bench.Simulated, v))
		}
		cmp, err := Compare(rs, Options{Base: "base"})
		if err != nil {
			t.Fatal(err)
		}
		c := cmp.Rows[0].Candidates[0]
		if c.Verdict != tc.want || c.Test != TestTolerance {
			t.Errorf("%s: verdict %s by %s (delta %.3f%%, tolerance %.3f%%), want %s", tc.name, c.Verdict, c.Test, c.DeltaPct, c.MDEPct, tc.want)
		}
	}
}

func TestSimulatedHistory(t *testing.T) {
	rs := []*bench.Result{
		simResult("base", "X", "instructions/op", bench.Simulated, 100000), simResult("base", "X", "instructions/op", bench.Simulated, 100001),
		simResult("new", "X", "instructions/op", bench.Simulated, 100400), simResult("new", "X", "instructions/op", bench.Simulated, 100401),
	}
	opts := Options{Base: "base"}
	opts.Verdicts.History = func(*Row) (stats.Noise, bool) { return stats.Noise{ThresholdPct: 0.5, N: 8}, true }
	cmp, err := Compare(rs, opts)
	if err != nil {
		t.Fatal(err)
	}
	if c := cmp.Rows[0].Candidates[0]; c.Verdict != Same || c.MDEPct != 0.5 || c.NoiseHistory != 8 {
		t.Errorf("0.4%% change under a learned 0.5%% threshold: %s, tolerance %.2f%%", c.Verdict, c.MDEPct)
	}
}

func TestBothInstruments(t *testing.T) {
	var rs []*bench.Result
	for i, v := range []float64{1000, 1010, 990, 1005, 995, 1002} {
		rs = append(rs, simResult("base", "Append", "ns/op", "", v), simResult("new", "Append", "ns/op", "", v/2+float64(i)))
		rs = append(rs, simResult("base", "Checksum", "ns/op", "", v), simResult("new", "Checksum", "ns/op", "", v+1))
	}
	for _, v := range []float64{5000, 5001, 5002} {
		rs = append(rs, simResult("base", "Append", "instructions/op", bench.Simulated, v), simResult("new", "Append", "instructions/op", bench.Simulated, v))
		rs = append(rs, simResult("base", "Checksum", "instructions/op", bench.Simulated, v), simResult("new", "Checksum", "instructions/op", bench.Simulated, v))
	}
	cmp, err := Compare(rs, Options{Base: "base"})
	if err != nil {
		t.Fatal(err)
	}
	if len(cmp.Instruments) != 2 || cmp.Instruments[0].Instrument != InstrumentWallTime || cmp.Instruments[0].Better != 1 ||
		cmp.Instruments[1].Instrument != InstrumentCPUSim || cmp.Instruments[1].Same != 2 {
		t.Errorf("instrument tallies %+v", cmp.Instruments)
	}
	for _, row := range cmp.Rows {
		note := row.Candidates[0].Note
		if (row.Benchmark == "Append" && row.Unit == "ns/op") != (note == OutsideNote) {
			t.Errorf("%s %s: note %q", row.Benchmark, row.Unit, note)
		}
	}
	w := strings.Join(cmp.Warnings, "\n")
	if !strings.Contains(w, ScopeNote) || !strings.Contains(w, "Append on new: wall time better") {
		t.Errorf("warnings: %s", w)
	}
}
