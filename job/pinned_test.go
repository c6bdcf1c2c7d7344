package job

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/internal/gitrepo"
	"github.com/perfbot/perfbot/job/jobspec"
	"github.com/perfbot/perfbot/runner"
)

// TestRunPinnedCandidateCommit: a job whose candidate was pinned to a
// commit (jobspec.Spec.CandidateCommit) measures that commit after its pull
// request's ref was force-pushed elsewhere, from a remote source that no
// longer names it (fetched by its id), and fails with a request error
// naming it when the source does not have it.
func TestRunPinnedCandidateCommit(t *testing.T) {
	r := gitrepo.New(t)
	r.Commit("cost", map[string]string{"cost": "200\n"})
	r.Git("checkout", "-q", "-b", "pull/1/head")
	approved := r.Commit("halve the cost", map[string]string{"cost": "100\n"})
	r.Git("reset", "-q", "--hard", "main")
	pushed := r.Commit("cost almost nothing", map[string]string{"cost": "7\n"})
	r.Git("checkout", "-q", "main")

	file := filepath.Join(t.TempDir(), "config.yaml")
	yaml := "suites:\n  work:\n    command: \"printf 'BenchmarkWork 1 %s ns/op\\\\n' $(cat {worktree}/cost)\"\n    parser: gobench\n    count: 2\n"
	if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Config: cfg, Repo: "file://" + r.Dir, CacheDir: t.TempDir(), NoSandbox: true}
	spec := jobspec.Spec{Key: "github:acme/store#1/comment/1", CandidateRef: "pull/1/head", CandidateCommit: approved, Source: "github"}
	out, err := Run(context.Background(), spec, opts)
	if err != nil {
		t.Fatal(err)
	}
	cand := out.Comparison.Provenance.Sides[1]
	if cand.Commit != approved || cand.Ref != "pull/1/head" {
		t.Errorf("candidate side %+v, want pull/1/head at %s (approved), not %s (pushed since)", cand, approved, pushed)
	}
	measured := 0
	for _, res := range out.Results {
		if res.Variant != "pull/1/head" {
			continue
		}
		for _, v := range res.Samples {
			measured++
			if v != 100e-9 && v != 100 {
				t.Errorf("candidate measured %v, want the approved commit's cost, 100 ns", res.Samples)
			}
		}
	}
	if measured == 0 {
		t.Errorf("no sample of the candidate in %+v", out.Results)
	}

	spec.CandidateCommit = strings.Repeat("d", 40)
	_, err = Run(context.Background(), spec, opts)
	var me *runner.MissingCommitError
	if !errors.As(err, &me) || !IsRequestError(err) || !strings.Contains(err.Error(), "dddddddddd") {
		t.Errorf("a pinned commit the source lacks: err = %v, want a MissingCommitError naming it", err)
	}
}
