package flame

import (
	"strings"
	"testing"
)

// TestGraph titles one profile by its file and a pair as candidate against
// baseline, and draws a pair as a differential graph.
func TestGraph(t *testing.T) {
	read := func(s string) *Profile {
		p, err := ReadFolded(strings.NewReader(s), "x")
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	base, cand := read("main;a 3\nmain;b 1\n"), read("main;a 1\nmain;b 3\n")
	root, opts := Graph([]*Profile{base}, []string{"dir/base.folded"}, "")
	if opts.Title != "base.folded" || opts.Diff || opts.CandSamples != base.Samples || root == nil {
		t.Errorf("one profile: %+v", opts)
	}
	_, opts = Graph([]*Profile{base, cand}, []string{"dir/base.folded", "cand.folded"}, "")
	if opts.Title != "cand.folded against base.folded" || !opts.Diff || opts.BaseSamples != base.Samples || opts.CandSamples != cand.Samples {
		t.Errorf("two profiles: %+v", opts)
	}
	if _, opts = Graph([]*Profile{base}, []string{"b"}, "mine"); opts.Title != "mine" {
		t.Errorf("given title: %q", opts.Title)
	}
}
