package job

import (
	"slices"
	"testing"

	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/provenance"
	"github.com/perfbot/perfbot/runner"
)

func TestCandidates(t *testing.T) {
	if got, want := Candidates([]string{"x/fix.patch"}, []string{"main"}), []runner.Candidate{{Name: "patch", Patch: "x/fix.patch"}, {Name: "main", Ref: "main"}}; !slices.Equal(got, want) {
		t.Errorf("one patch: %+v, want %+v", got, want)
	}
	got := Candidates([]string{"a/one.patch", "b/two.diff", ".patch"}, nil)
	var names []string
	for _, c := range got {
		names = append(names, c.Name)
	}
	if want := []string{"one", "two", "patch3"}; !slices.Equal(names, want) {
		t.Errorf("several patches named %q, want %q", names, want)
	}
}

func TestSuiteNames(t *testing.T) {
	if got := (Options{}).SuiteNames(nil); !slices.Equal(got, []string{"go"}) {
		t.Errorf("no config: %q", got)
	}
	o := Options{Config: &config.Config{Suites: []config.Suite{{Name: "wal"}, {Name: "cache"}}}}
	if got := o.SuiteNames(nil); !slices.Equal(got, []string{"wal", "cache"}) {
		t.Errorf("config's suites: %q", got)
	}
	if got := o.SuiteNames([]string{"cache"}); !slices.Equal(got, []string{"cache"}) {
		t.Errorf("selected: %q", got)
	}
}

func TestOutcomeFailures(t *testing.T) {
	o := &Outcome{Comparison: &compare.Comparison{Failures: []provenance.Failure{
		{Variant: "patch", Stage: "build", Message: "exit status 1"}, {Variant: "base", Stage: "run", Message: "timeout"}}}}
	if got, want := o.Failures(), "patch build: exit status 1; base run: timeout"; got != want {
		t.Errorf("Failures = %q, want %q", got, want)
	}
}
