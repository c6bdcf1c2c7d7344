package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/internal/gitrepo"
	"github.com/perfbot/perfbot/provenance"
	"github.com/perfbot/perfbot/store"
	"github.com/perfbot/perfbot/track"
)

// stepModule is a Go module with one benchmark whose work is loops
// rounds of arithmetic.
func stepModule(loops int) map[string]string {
	return map[string]string{
		"go.mod": "module example.org/step\n\ngo 1.22\n",
		"step.go": fmt.Sprintf(`package step

var sink uint64

// Step does loops rounds of arithmetic.
func Step() {
	x := sink
	for i := 0; i < %d; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	sink = x
}
`, loops),
		"step_test.go": `package step

import "testing"

func BenchmarkStep(b *testing.B) {
	for i := 0; i < b.N; i++ {
		Step()
	}
}
`,
	}
}

// stepHistory is a repository of 4 commits whose 3rd makes BenchmarkStep
// do 1.5 times the work.
func stepHistory(t *testing.T) (r *gitrepo.Repo, commits []string) {
	r = gitrepo.New(t)
	commits = append(commits,
		r.Commit("step", stepModule(2000)),
		r.Commit("notes 1", map[string]string{"NOTES": "one\n"}),
		r.Commit("step: 1.5 times the rounds", stepModule(3000)),
		r.Commit("notes 2", map[string]string{"NOTES": "two\n"}))
	return r, commits
}

// TestTrackCPUSimStepAtCommit tracks 4 commits under cpu-sim, of which the
// 3rd makes the benchmark 1.5 times the work: the 3rd commit's own run
// names it a change point at once (found_by run), one per counted unit,
// and no other commit is one. Instruction counts do not move with the host's load, so the test
// holds on a loaded host; it measures 3 commits of one benchmark.
func TestTrackCPUSimStepAtCommit(t *testing.T) {
	if testing.Short() {
		t.Skip("benchmarks 3 commits under cachegrind")
	}
	t.Setenv("XDG_CACHE_HOME", sharedCacheHome(t))
	r, commits := stepHistory(t)
	db := filepath.Join(t.TempDir(), "perfbot.db")
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"track", "--repo", r.Dir, "--branch", "main", "--from", commits[0], "--db", db,
		"--no-sandbox", "--cache-dir", sharedCacheDir(t), "--instrument", "cpu-sim", "--no-confirm", "--count", "2",
		"-q", "--format", "json"}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("track: %v\n%s", err, stderr.String())
	}
	var cps []store.ChangePoint
	if err := json.Unmarshal(stdout.Bytes(), &cps); err != nil {
		t.Fatalf("%v\n%s", err, stdout.String())
	}
	// cpu-sim counts instructions and estimates cycles: each is a series,
	// and each may step once.
	var steps []store.ChangePoint
	perUnit := map[string]int{}
	for _, c := range cps {
		if c.Benchmark != "Step" {
			t.Errorf("change point of %s, which the history lacks: %+v", c.Benchmark, c)
		}
		if perUnit[c.Unit]++; perUnit[c.Unit] > 1 {
			t.Errorf("a second change point in %s: %+v", c.Unit, c)
		}
		if c.Unit == "instructions/op" {
			steps = append(steps, c)
		}
	}
	if len(steps) != 1 {
		t.Fatalf("%d change points in instructions/op, want 1:\n%s\n%s", len(steps), stdout.String(), stderr.String())
	}
	c := steps[0]
	if c.Commit != commits[2] || c.CommitBefore != commits[1] || c.FoundBy != store.FoundByRun {
		t.Errorf("change point at %.12s after %.12s found by %s, want %.12s after %.12s found by %s",
			c.Commit, c.CommitBefore, c.FoundBy, commits[2], commits[1], store.FoundByRun)
	}
	if c.DeltaPct < 40 || c.DeltaPct > 55 {
		t.Errorf("change %+.1f%%, want about +50%%", c.DeltaPct)
	}
	for _, c := range cps {
		if c.Commit != commits[2] {
			t.Errorf("change point at %.12s (%s %s), which changed no benchmark", c.Commit, c.Benchmark, c.Unit)
		}
	}
}

// TestTrackKeepsBranchInstrument: a track whose last run chose cpu-sim
// under auto measures its next commit under cpu-sim without choosing
// again, and says so; its provenance names the commit that chose.
func TestTrackKeepsBranchInstrument(t *testing.T) {
	if testing.Short() {
		t.Skip("benchmarks a commit under cachegrind")
	}
	t.Setenv("XDG_CACHE_HOME", sharedCacheHome(t))
	r, commits := stepHistory(t)
	db := filepath.Join(t.TempDir(), "perfbot.db")
	ctx := context.Background()
	st, err := store.Open(ctx, store.SQLite, db)
	if err != nil {
		t.Fatal(err)
	}
	// The run of commit 2, as an auto run that chose cpu-sim stored it.
	name := track.Name(r.Dir, "main")
	why := "wall time on this host varied 57% during the probe, above the 5% to detect"
	chose := &compare.Comparison{Provenance: provenance.Record{Suites: []provenance.Suite{
		{Name: "go", Instrument: "cpu-sim", InstrumentWhy: why}}}}
	err = track.Record(ctx, st, name, track.Commit{Hash: commits[1], Parent: commits[0]},
		func(context.Context) (*compare.Comparison, error) { return chose, nil })
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	err = run(ctx, []string{"track", "--repo", r.Dir, "--branch", "main", "--db", db, "--max-commits", "1",
		"--no-sandbox", "--cache-dir", sharedCacheDir(t), "--no-confirm", "--count", "2", "--format", "json"}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("track: %v\n%s", err, stderr.String())
	}
	kept := fmt.Sprintf("instrument cpu-sim (auto, kept for branch main since %.12s): %s", commits[1], why)
	if !strings.Contains(stderr.String(), kept) || strings.Contains(stderr.String(), "instrument walltime") {
		t.Errorf("progress lacks %q:\n%s", kept, stderr.String())
	}
	st, err = store.Open(ctx, store.SQLite, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	last, err := st.LastDoneRun(ctx, track.KeyPrefix(name))
	if err != nil {
		t.Fatal(err)
	}
	if last.CandidateCommit != commits[3] {
		t.Fatalf("last run measured %.12s, want the head %.12s", last.CandidateCommit, commits[3])
	}
	var prov provenance.Record
	if err := json.Unmarshal(last.Provenance, &prov); err != nil {
		t.Fatal(err)
	}
	if len(prov.Suites) == 0 || prov.Suites[0].Instrument != "cpu-sim" || prov.Suites[0].InstrumentSince != commits[1] ||
		prov.Suites[0].InstrumentBranch != "main" || prov.Suites[0].InstrumentWhy != why {
		t.Errorf("provenance suites %+v, want cpu-sim kept for main since %.12s", prov.Suites, commits[1])
	}
	cmp, err := st.Comparison(ctx, last.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range cmp.Rows {
		if row.Unit == "ns/op" {
			t.Errorf("row %s measured wall time under the kept cpu-sim", row.Benchmark)
		}
	}
}
