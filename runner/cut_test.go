package runner

import (
	"context"
	"os"
	"testing"

	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/internal/gitrepo"
	"github.com/perfbot/perfbot/sandbox"
)

// TestRunRecordsOutputCut checks that a run whose output is cut at the
// output cap is recorded with where it was cut.
func TestRunRecordsOutputCut(t *testing.T) {
	r := gitrepo.New(t)
	r.Commit("empty", map[string]string{"README": "nothing to build\n"})
	suite := config.Suite{
		Name: "cut",
		// The candidate prints a banner first, so the cap cuts its
		// benchmarks earlier than the baseline's.
		Command: `head -c "$BANNER" /dev/zero | tr '\0' '#'; echo; for i in 01 02 03 04 05 06 07 08 09 10 11 12 13 14 15 16 17 18 19 20; do echo "BenchmarkB$i 1 $i ns/op"; done`,
		Parser:  "gobench",
		Count:   1,
		Variants: config.Variants{
			{Name: "base", Env: map[string]string{"BANNER": "1"}},
			{Name: "cand", Env: map[string]string{"BANNER": "400"}},
		},
	}
	out, err := Run(context.Background(), Options{Decide: decideBy(compare.Options{}),
		Repo: r.Dir, Base: "HEAD", Suites: []config.Suite{suite}, MaxOutput: 600,
		CacheDir: t.TempDir(), Sandbox: sandbox.Local{}, SandboxName: "none", Env: os.Environ(),
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Cuts) == 0 {
		t.Fatal("no cut recorded")
	}
	for _, c := range out.Cuts {
		if c.Variant != "cand" || c.Kept != 600 || c.Dropped <= 0 || c.Last != "B08" {
			t.Errorf("cut %+v: want cand, 600 bytes kept, some dropped, last B08", c)
		}
	}
}
