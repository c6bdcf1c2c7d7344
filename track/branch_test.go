package track

import (
	"context"
	"testing"

	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/internal/storetest"
	"github.com/perfbot/perfbot/job/jobspec"
	"github.com/perfbot/perfbot/provenance"
)

// TestKeptInstruments follows a track's instrument through its runs: none
// kept before the first run (it probes), none after a run whose
// instrument was named (walltime given, no auto choice), the auto choice
// with its commit after an auto run, and the same commit after a run that
// itself kept it.
func TestKeptInstruments(t *testing.T) {
	ctx := context.Background()
	st := storetest.SQLite(t)
	const name, branch = "/r@main", "main"
	record := func(commit, parent string, suites ...provenance.Suite) {
		t.Helper()
		cmp := &compare.Comparison{Provenance: provenance.Record{Suites: suites}}
		if err := Record(ctx, st, name, Commit{Hash: commit, Parent: parent},
			func(context.Context) (*compare.Comparison, error) { return cmp, nil }); err != nil {
			t.Fatal(err)
		}
	}
	kept := func() []jobspec.KeptInstrument {
		t.Helper()
		k, err := KeptInstruments(ctx, st, name, branch)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	if k := kept(); len(k) != 0 {
		t.Fatalf("a track with no run keeps %+v, want none", k)
	}
	record("c1", "c0", provenance.Suite{Name: "go", Instrument: "walltime"})
	if k := kept(); len(k) != 0 {
		t.Fatalf("after a run with a named instrument, kept %+v, want none", k)
	}
	const why = "wall time on this host varied 57% during the probe, above the 5% to detect"
	record("c2", "c1", provenance.Suite{Name: "go", Instrument: "cpu-sim", InstrumentWhy: why},
		provenance.Suite{Name: "cmd", Instrument: "walltime"})
	want := jobspec.KeptInstrument{Suite: "go", Instrument: "cpu-sim", Why: why, Branch: branch, Since: "c2"}
	if k := kept(); len(k) != 1 || k[0] != want {
		t.Fatalf("after an auto run, kept %+v, want [%+v]", k, want)
	}
	record("c3", "c2", provenance.Suite{Name: "go", Instrument: "cpu-sim", InstrumentWhy: why, InstrumentBranch: branch, InstrumentSince: "c2"})
	if k := kept(); len(k) != 1 || k[0] != want {
		t.Fatalf("after a run that kept it, kept %+v, want [%+v]", k, want)
	}
}
