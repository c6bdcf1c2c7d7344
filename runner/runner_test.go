package runner

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/bench"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/internal/gitrepo"
	"github.com/perfbot/perfbot/provenance"
	"github.com/perfbot/perfbot/sandbox"
)

func newWorkRepo(t *testing.T, withBench bool) *gitrepo.Repo {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH")
	}
	r := gitrepo.New(t)
	r.Commit("work", gitrepo.WorkModule(200000, withBench))
	return r
}

func goSuite() []config.Suite {
	return []config.Suite{{Name: "go", Preset: "go", Count: 6, Go: config.GoOptions{Benchtime: "20x"}}}
}

func testOptions(t *testing.T, repo string, cands ...Candidate) Options {
	return Options{Decide: decideBy(compare.Options{}),
		Repo: repo, Base: "HEAD", Candidates: cands, Suites: goSuite(),
		CacheDir: t.TempDir(), Sandbox: sandbox.Local{}, SandboxName: "none",
		Env: os.Environ(),
	}
}

// centers returns the median ns/op per benchmark and variant.
func medians(results []*bench.Result) map[string][]float64 {
	m := map[string][]float64{}
	for _, r := range results {
		if r.Unit == "ns/op" {
			k := r.Variant + " " + strings.SplitN(r.Benchmark, "-", 2)[0]
			m[k] = append(m[k], r.Samples...)
		}
	}
	return m
}

func TestRunPatchTwiceAsFast(t *testing.T) {
	r := newWorkRepo(t, true)
	patch := r.Patch("work: halve the loop", map[string]string{"work/work.go": gitrepo.WorkSource(100000)}, true)
	opts := testOptions(t, r.Dir, Candidate{Name: "patch", Patch: patch})
	var steps []Step
	opts.Step = func(s Step) { steps = append(steps, s) }
	out, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Failures) > 0 {
		t.Fatalf("failures: %+v", out.Failures)
	}
	// A step per side's build, then per side's round, in the run order.
	if len(steps) != 2+12 {
		t.Fatalf("steps %+v: want 2 builds and 12 rounds", steps)
	}
	for i, s := range steps[2:] {
		if s.Stage != "run" || s.Suite != "go" || s.Variant != out.Provenance.RunOrder[i] || s.Round != i/2+1 || s.Rounds != 6 || s.Sides != 2 {
			t.Errorf("step %d = %+v", i, s)
		}
	}
	m := medians(out.Results)
	for _, k := range []string{"base Work", "patch Work", "base Other", "patch Other"} {
		if len(m[k]) != 6 {
			t.Errorf("%s: %d samples, want 6", k, len(m[k]))
		}
	}
	order := out.Provenance.RunOrder
	if len(order) != 12 {
		t.Fatalf("run order %v: want 12 runs", order)
	}
	lead := map[string]int{}
	for i := 0; i < len(order); i += 2 {
		lead[order[i]]++
	}
	if lead["base"] != 3 || lead["patch"] != 3 {
		t.Errorf("run order %v: each side should go first in half the rounds", order)
	}
	if out.Provenance.Sides[1].PatchSubject != "work: halve the loop" {
		t.Errorf("patch subject = %q", out.Provenance.Sides[1].PatchSubject)
	}
	checkTiming(t, out.Provenance.Timing, 12)
}

// checkTiming checks that a run's timing names its stages, counts every
// round's commands and adds up to no more than its wall time.
func checkTiming(t *testing.T, tm *provenance.Timing, rounds int) {
	t.Helper()
	if tm == nil {
		t.Fatal("no timing in the provenance")
	}
	kinds := map[string]provenance.StageKind{}
	sum := 0.0
	for _, st := range tm.Stages {
		kinds[st.Name] = st.Kind
		sum += st.Seconds
		if st.Seconds < 0 {
			t.Errorf("stage %s took %v s", st.Name, st.Seconds)
		}
		if st.Name == "benchmark commands" && st.Count != rounds {
			t.Errorf("benchmark commands counted %d times, want once per round and side (%d)", st.Count, rounds)
		}
	}
	for name, kind := range map[string]provenance.StageKind{
		"workspace, worktrees and patches":               provenance.StageOverhead,
		"host description and noise probe":               provenance.StageOverhead,
		"builds":                                         provenance.StageBuild,
		"benchmark commands":                             provenance.StageBenchmark,
		"rounds outside the commands (sandbox, parsing)": provenance.StageOverhead,
	} {
		if kinds[name] != kind {
			t.Errorf("stage %q: kind %q, want %q (stages %+v)", name, kinds[name], kind, tm.Stages)
		}
	}
	if !(tm.Seconds(provenance.StageBenchmark) > 0) {
		t.Errorf("benchmark commands took %v s", tm.Seconds(provenance.StageBenchmark))
	}
	// The stages are measured one after another within the wall time.
	if sum > tm.Wall*1.001 {
		t.Errorf("stages add up to %.3f s, more than the wall time %.3f s", sum, tm.Wall)
	}
	over, pct := tm.Overhead()
	if over < 0 || pct < 0 || pct > 100 {
		t.Errorf("overhead %v s, %v%%", over, pct)
	}
}

func TestRunPatchBringsItsOwnBenchmark(t *testing.T) {
	r := newWorkRepo(t, false)
	patch := r.Patch("work: faster, with a benchmark", map[string]string{
		"work/work.go":      gitrepo.WorkSource(100000),
		"work/work_test.go": gitrepo.WorkBench,
	}, false)
	out, err := Run(context.Background(), testOptions(t, r.Dir, Candidate{Name: "patch", Patch: patch}))
	if err != nil {
		t.Fatal(err)
	}
	m := medians(out.Results)
	if len(m["base Work"]) == 0 || len(m["patch Work"]) == 0 {
		t.Fatalf("want BenchmarkWork on both sides, got %v; failures %+v", keys(m), out.Failures)
	}
	if len(out.Warnings) == 0 || !strings.Contains(out.Warnings[0], "work/work_test.go") {
		t.Errorf("warnings = %q, want the overlaid benchmark file named", out.Warnings)
	}
}

func TestRunBrokenPatch(t *testing.T) {
	r := newWorkRepo(t, true)
	patch := r.Patch("x", map[string]string{"work/work.go": gitrepo.WorkSource(100000)}, false)
	// Change the baseline so the patch's context no longer matches.
	r.Commit("move on", map[string]string{"work/work.go": strings.ReplaceAll(gitrepo.WorkSource(300000), "x := sink", "y := sink\n\tx := y")})
	_, err := Run(context.Background(), testOptions(t, r.Dir, Candidate{Name: "patch", Patch: patch}))
	var pe *PatchError
	if !errors.As(err, &pe) {
		t.Fatalf("err = %v, want a PatchError", err)
	}
	if len(pe.Failures) == 0 || !strings.Contains(pe.Error(), "work/work.go") {
		t.Errorf("error %q does not name the file and hunk", pe)
	}
}

func TestRunBuildFailureOnOneSide(t *testing.T) {
	r := newWorkRepo(t, true)
	patch := r.Patch("break it", map[string]string{"work/work.go": gitrepo.WorkSource(100000) + "\nfunc broken() { undefined() }\n"}, true)
	out, err := Run(context.Background(), testOptions(t, r.Dir, Candidate{Name: "patch", Patch: patch}))
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Failures) != 1 || out.Failures[0].Variant != "patch" || out.Failures[0].Stage != "build" {
		t.Fatalf("failures = %+v, want one build failure of patch", out.Failures)
	}
	if !strings.Contains(out.Failures[0].LogTail, "undefined") {
		t.Errorf("log tail %q lacks the compiler's message", out.Failures[0].LogTail)
	}
	if m := medians(out.Results); len(m["base Work"]) != 6 {
		t.Errorf("baseline should still be measured: %v", keys(m))
	}
}

func TestRunBenchmarkPanics(t *testing.T) {
	r := newWorkRepo(t, true)
	patch := r.Patch("panic", map[string]string{"work/work_test.go": strings.Replace(gitrepo.WorkBench, "Other()\n", "Other()\n\t\tpanic(\"boom\")\n", 1)}, true)
	out, err := Run(context.Background(), testOptions(t, r.Dir, Candidate{Name: "patch", Patch: patch}))
	if err != nil {
		t.Fatal(err)
	}
	var run []string
	for _, f := range out.Failures {
		run = append(run, f.Variant+"/"+f.Stage)
		if f.Stage == "run" && !strings.Contains(f.LogTail, "boom") {
			t.Errorf("log tail %q lacks the panic", f.LogTail)
		}
	}
	// The overlay lays the patched benchmark file over the baseline too,
	// so both sides panic in BenchmarkOther; BenchmarkWork, which runs
	// first, is still measured on both.
	if len(run) == 0 {
		t.Fatal("no failure recorded for a panicking benchmark")
	}
	if m := medians(out.Results); len(m["base Work"]) == 0 || len(m["patch Work"]) == 0 {
		t.Errorf("benchmarks before the panic should be measured: %v", keys(m))
	}
}

func keys(m map[string][]float64) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

func TestMatchAny(t *testing.T) {
	for _, c := range []struct {
		globs []string
		file  string
		want  bool
	}{
		{[]string{"**/*_test.go"}, "a/b/c_test.go", true},
		{[]string{"**/*_test.go"}, "c_test.go", true},
		{[]string{"**/*_test.go"}, "a/c.go", false},
		{[]string{"bench/*.java"}, "bench/X.java", true},
		{[]string{"bench/*.java"}, "src/bench/X.java", false},
		{[]string{"*.jmh"}, "x/y.jmh", true},
		{[]string{"**/bench/*.java"}, "src/bench/X.java", true},
	} {
		if got := matchAny(c.globs, c.file); got != c.want {
			t.Errorf("matchAny(%v, %q) = %v, want %v", c.globs, c.file, got, c.want)
		}
	}
}

// TestRunSeveralHeads compares two refs against the baseline, as two
// release candidates against the last release: one column each.
func TestRunSeveralHeads(t *testing.T) {
	r := newWorkRepo(t, true)
	r.Git("tag", "v1.0")
	r.Commit("rc1", map[string]string{"work/work.go": gitrepo.WorkSource(150000)})
	r.Git("tag", "v1.1-rc1")
	r.Commit("rc2", map[string]string{"work/work.go": gitrepo.WorkSource(100000)})
	r.Git("tag", "v1.1-rc2")
	opts := testOptions(t, r.Dir, Candidate{Name: "v1.1-rc1", Ref: "v1.1-rc1"}, Candidate{Name: "v1.1-rc2", Ref: "v1.1-rc2"})
	opts.Base = "v1.0"
	opts.Suites[0].Count = 3
	out, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(out.Variants, " "); got != "base v1.1-rc1 v1.1-rc2" {
		t.Errorf("variants = %s", got)
	}
	m := medians(out.Results)
	for _, v := range out.Variants {
		if len(m[v+" Work"]) != 3 {
			t.Errorf("%s: %d samples of Work, want 3", v, len(m[v+" Work"]))
		}
	}
	if len(out.Provenance.RunOrder) != 9 {
		t.Errorf("run order %v: want 9 runs", out.Provenance.RunOrder)
	}
	if out.Provenance.Sides[2].Commit == out.Provenance.Sides[1].Commit {
		t.Error("the two heads resolved to one commit")
	}
}
