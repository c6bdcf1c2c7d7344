package job

import (
	"slices"
	"testing"

	"github.com/perfbot/perfbot/config"
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
