package runner

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/internal/gitrepo"
)

// runPatch runs a patch against the repository's HEAD for two rounds.
func runPatch(t *testing.T, r *gitrepo.Repo, patch string) *Outcome {
	t.Helper()
	opts := testOptions(t, r.Dir, Candidate{Name: "patch", Patch: patch})
	opts.Suites[0].Count = 2
	out, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRunBenchmarkCallsWhatOnlyThePatchHas: the patch renames Work to
// Crunch and its benchmark calls Crunch, which the baseline lacks. The
// baseline is built again with its own benchmark file, every benchmark
// both sides have is compared, and one sentence says why.
func TestRunBenchmarkCallsWhatOnlyThePatchHas(t *testing.T) {
	r := newWorkRepo(t, true)
	r.Commit("a second package with a benchmark", map[string]string{
		"more/more.go":      "package more\n\nfunc More() int { return 1 }\n",
		"more/more_test.go": "package more\n\nimport \"testing\"\n\nfunc BenchmarkMore(b *testing.B) {\n\tfor i := 0; i < b.N; i++ {\n\t\tMore()\n\t}\n}\n\nfunc BenchmarkMoreTwice(b *testing.B) {\n\tfor i := 0; i < b.N; i++ {\n\t\tMore()\n\t\tMore()\n\t}\n}\n",
	})
	patch := r.Patch("work: rename Work to Crunch", map[string]string{
		"work/work.go":      strings.Replace(gitrepo.WorkSource(100000), "func Work()", "func Crunch()", 1),
		"work/work_test.go": strings.Replace(gitrepo.WorkBench, "\t\tWork()", "\t\tCrunch()", 1),
		// Benchmarks that build on the baseline stay laid over it: in
		// another package, and beside the file that does not build.
		"work/bä_test.go":   strings.Replace(strings.Replace(gitrepo.WorkBench, "func BenchmarkWork(b *testing.B) {\n\tfor i := 0; i < b.N; i++ {\n\t\tWork()\n\t}\n}\n", "", 1), "BenchmarkOther", "BenchmarkÜber", 1),
		"more/more_test.go": "package more\n\nimport \"testing\"\n\nfunc BenchmarkMore(b *testing.B) {\n\tfor i := 0; i < b.N; i++ {\n\t\tMore()\n\t}\n}\n\nfunc BenchmarkMoreThrice(b *testing.B) {\n\tfor i := 0; i < b.N; i++ {\n\t\tMore()\n\t\tMore()\n\t\tMore()\n\t}\n}\n",
	}, true)
	out := runPatch(t, r, patch)
	if len(out.Failures) > 0 {
		t.Fatalf("failures: %+v", out.Failures)
	}
	m := medians(out.Results)
	for _, k := range []string{"base Work", "patch Work", "base Other", "patch Other", "base MoreThrice", "patch MoreThrice", "base Über", "patch Über"} {
		if len(m[k]) != 2 {
			t.Errorf("%s: %d samples, want 2 (have %v)", k, len(m[k]), keys(m))
		}
	}
	if len(m["base MoreTwice"]) != 0 {
		t.Errorf("the baseline ran its own more_test.go, not the patch's")
	}
	warnings := strings.Join(out.Warnings, "\n")
	want := "The patch's benchmark file work/work_test.go does not build on base (work/work_test.go:7: undefined: Crunch), so it was not laid over base: base ran its own version of it, and benchmarks only the patch has show as new."
	if !strings.Contains(warnings, want) {
		t.Errorf("warnings:\n%s\nwant the sentence\n%s", warnings, want)
	}
	if !strings.Contains(warnings, "also laid over base so both sides run them: more/more_test.go, work/bä_test.go\n") {
		t.Errorf("warnings:\n%s\nwant the overlay note to list more/more_test.go and work/bä_test.go", warnings)
	}
}

// TestRunPatchAddsAPackageWithABenchmark: the new package's test file laid
// over the baseline has no code to test there; it is taken back and the
// package's benchmarks are new.
func TestRunPatchAddsAPackageWithABenchmark(t *testing.T) {
	r := newWorkRepo(t, true)
	patch := r.Patch("fresh: a new package", map[string]string{
		"fresh/fresh.go":      "package fresh\n\nfunc Fresh() int { return 2 }\n",
		"fresh/fresh_test.go": "package fresh\n\nimport \"testing\"\n\nfunc BenchmarkFresh(b *testing.B) {\n\tfor i := 0; i < b.N; i++ {\n\t\tFresh()\n\t}\n}\n",
	}, false)
	out := runPatch(t, r, patch)
	if len(out.Failures) > 0 {
		t.Fatalf("failures: %+v", out.Failures)
	}
	m := medians(out.Results)
	if len(m["patch Fresh"]) != 2 || len(m["base Fresh"]) != 0 || len(m["base Work"]) != 2 || len(m["patch Work"]) != 2 {
		t.Errorf("samples %v: want Fresh on the patch only, Work on both", keys(m))
	}
	warnings := strings.Join(out.Warnings, "\n")
	want := "The patch's benchmark file fresh/fresh_test.go does not build on base (fresh/fresh_test.go:7: undefined: Fresh), so it was not laid over base: the package is new in the patch, so its benchmarks ran on the patch only and show as new."
	if !strings.Contains(warnings, want) {
		t.Errorf("warnings:\n%s\nwant the sentence\n%s", warnings, want)
	}
	if strings.Contains(warnings, "also laid over") {
		t.Errorf("warnings:\n%s\nstill say the file was laid over", warnings)
	}
}

// TestRunNonASCIIBenchmarkFile: git quotes a path that is not ASCII in a
// diff ("work/b\303\244_test.go"); the file is laid over all the same.
func TestRunNonASCIIBenchmarkFile(t *testing.T) {
	r := newWorkRepo(t, false)
	patch := r.Patch("work: a benchmark in a file with an umlaut", map[string]string{
		"work/bä_test.go": strings.Replace(gitrepo.WorkBench, "BenchmarkOther", "BenchmarkÜber", 1),
	}, false)
	data, err := os.ReadFile(patch)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"a/work/b\303\244_test.go"`) {
		t.Fatalf("git did not quote the path; the test needs a quoted one:\n%s", data)
	}
	out := runPatch(t, r, patch)
	if len(out.Failures) > 0 {
		t.Fatalf("failures: %+v", out.Failures)
	}
	m := medians(out.Results)
	for _, k := range []string{"base Work", "patch Work", "base Über", "patch Über"} {
		if len(m[k]) != 2 {
			t.Errorf("%s: %d samples, want 2 (have %v)", k, len(m[k]), keys(m))
		}
	}
	if w := strings.Join(out.Warnings, "\n"); !strings.Contains(w, "laid over base so both sides run them: work/bä_test.go") {
		t.Errorf("warnings %q do not name work/bä_test.go as laid over", w)
	}
}

// TestRunBrokenBaselineStillFails: a baseline that does not build without
// the patch's benchmark either is a failed baseline build, not a new
// benchmark.
func TestRunBrokenBaselineStillFails(t *testing.T) {
	r := newWorkRepo(t, true)
	r.Commit("break the baseline", map[string]string{"work/work.go": gitrepo.WorkSource(200000) + "\nfunc broken() { missing() }\n"})
	patch := r.Patch("work: mend, rename Work to Crunch", map[string]string{
		"work/work.go":      strings.Replace(gitrepo.WorkSource(100000), "func Work()", "func Crunch()", 1),
		"work/work_test.go": strings.Replace(gitrepo.WorkBench, "\t\tWork()", "\t\tCrunch()", 1),
	}, true)
	out := runPatch(t, r, patch)
	if len(out.Failures) != 1 || out.Failures[0].Variant != "base" || out.Failures[0].Stage != "build" {
		t.Fatalf("failures = %+v, want one build failure of base", out.Failures)
	}
	if !strings.Contains(out.Failures[0].LogTail, "undefined: missing") {
		t.Errorf("log tail %q lacks the baseline's own error", out.Failures[0].LogTail)
	}
	if m := medians(out.Results); len(m["patch Work"]) != 2 {
		t.Errorf("the patch should still be measured: %v", keys(m))
	}
}

// TestRunCommandSuiteBenchmarkFile: a command suite's build builds the
// whole tree, so every file laid over the baseline is taken back when it
// fails there.
func TestRunCommandSuiteBenchmarkFile(t *testing.T) {
	r := gitrepo.New(t)
	r.Commit("lib", map[string]string{"lib.sh": "work() { echo 100; }\n", "bench/calls": "work\n"})
	patch := r.Patch("lib: rename work to crunch", map[string]string{"lib.sh": "crunch() { echo 50; }\n", "bench/calls": "crunch\n"}, false)
	zero := 0
	opts := testOptions(t, r.Dir, Candidate{Name: "patch", Patch: patch})
	opts.Suites = []config.Suite{{
		Name: "sh", Parser: "gobench", Count: 2, Warmup: &zero, BenchFiles: []string{"bench/*"},
		Build:   `. ./lib.sh && command -v "$(cat bench/calls)" >/dev/null || { echo "error: $(cat bench/calls) is not defined" >&2; exit 1; }`,
		Command: `. ./lib.sh; n=$(cat bench/calls); echo "Benchmark$n 1 $($n) ns/op"`,
	}}
	out, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Failures) > 0 {
		t.Fatalf("failures: %+v", out.Failures)
	}
	m := medians(out.Results)
	if len(m["base work"]) != 2 || len(m["patch crunch"]) != 2 {
		t.Errorf("samples %v: want work on base, crunch on the patch", keys(m))
	}
	want := "The patch's benchmark file bench/calls does not build on base (error: crunch is not defined), so it was not laid over base: base ran its own version of it, and benchmarks only the patch has show as new."
	if w := strings.Join(out.Warnings, "\n"); !strings.Contains(w, want) {
		t.Errorf("warnings:\n%s\nwant\n%s", w, want)
	}
}

func TestFirstCompileError(t *testing.T) {
	wt := "/cache/wt/base"
	for _, c := range []struct{ out, dir, want string }{
		{"# example.org/work [example.org/work.test]\n./work_test.go:7:3: undefined: Crunch\nother\n", wt + "/work", "work/work_test.go:7: undefined: Crunch"},
		{"# x\nwork/work_test.go:7:3: undefined: Crunch\n", wt, "work/work_test.go:7: undefined: Crunch"},
		{"/cache/wt/base/a/b_test.go:1:1: expected 'package'\n", wt, "a/b_test.go:1: expected 'package'"},
		{"[INFO] Scanning\n[ERROR] /cache/wt/base/src/Foo.java:[12,5] cannot find symbol\n", wt, "[ERROR] src/Foo.java:[12,5] cannot find symbol"},
		{"", wt, "the build failed without a message"},
	} {
		if got := firstCompileError(c.out, wt, c.dir); got != c.want {
			t.Errorf("firstCompileError(%q) = %q, want %q", c.out, got, c.want)
		}
	}
	got := firstCompileError("x.go:1: \x1b[31mred\x1b[0m "+strings.Repeat("y", 300), wt, wt)
	if strings.ContainsAny(got, "\x1b\n") || len(got) != 203 || !strings.HasPrefix(got, "x.go:1:  [31mred [0m yyy") || !strings.HasSuffix(got, "y...") {
		t.Errorf("a long message with control characters became %q", got)
	}
}
