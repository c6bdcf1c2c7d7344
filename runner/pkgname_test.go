package runner

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/internal/gitrepo"
)

// TestRunPackagesWhoseNamesDifferOnlyInSlashes: packages a/b and a_b
// once shared one test binary name (every unsafe byte became '_'). The
// patch adds only a test-only package a_b, whose benchmark is a no-op;
// a/b, which the patch never touched, must still run its own binary on
// both sides, and a_b its own.
func TestRunPackagesWhoseNamesDifferOnlyInSlashes(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH")
	}
	r := gitrepo.New(t)
	r.Commit("a/b: a package with a benchmark", map[string]string{
		"go.mod":        "module example.com/rt\n\ngo 1.22\n",
		"a/b/b.go":      "package b\n\nvar sink int\n\n// Spin loops n times.\nfunc Spin(n int) {\n\tfor i := 0; i < n; i++ {\n\t\tsink += i\n\t}\n}\n",
		"a/b/b_test.go": "package b\n\nimport \"testing\"\n\nfunc BenchmarkSlashed(b *testing.B) {\n\tfor i := 0; i < b.N; i++ {\n\t\tSpin(10000)\n\t}\n}\n",
	})
	patch := r.Patch("a_b: a test-only package", map[string]string{
		"a_b/x_test.go": "package a_b\n\nimport \"testing\"\n\nfunc BenchmarkUnderscored(b *testing.B) {\n\tfor i := 0; i < b.N; i++ {\n\t}\n}\n",
	}, true)
	out := runPatch(t, r, patch)
	for _, f := range out.Failures {
		t.Errorf("failure: %+v", f)
	}
	got := map[string]map[string]bool{} // variant and group -> benchmarks
	for _, res := range out.Results {
		if res.Unit != "ns/op" {
			continue
		}
		k := res.Variant + " " + res.Group
		if got[k] == nil {
			got[k] = map[string]bool{}
		}
		top, _, _ := strings.Cut(res.Benchmark, "-")
		got[k][top] = true
	}
	for _, v := range []string{"base", "patch"} {
		ab := got[v+" example.com/rt/a/b"]
		if len(ab) != 1 || !ab["Slashed"] {
			t.Errorf("%s: package a/b ran %v, want only its own BenchmarkSlashed (all: %v)", v, ab, got)
		}
	}
	if under := got["patch example.com/rt/a_b"]; len(under) != 1 || !under["Underscored"] {
		t.Errorf("patch: package a_b ran %v, want only its BenchmarkUnderscored (all: %v)", under, got)
	}
}
