package job

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/internal/gitrepo"
	"github.com/perfbot/perfbot/job/jobspec"
	"github.com/perfbot/perfbot/runner"
)

// TestRunSeriesBaseCommit: a mailed series whose cover letter names an
// older commit as its base (jobspec.Spec.BaseCommit) is measured against it, even
// though its patches no longer apply on the branch head; a baseline asked
// for (jobspec.Spec.BaseRef) wins over it.
func TestRunSeriesBaseCommit(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH")
	}
	r := gitrepo.New(t)
	older := r.Commit("work", gitrepo.WorkModule(200000, true))
	r.Commit("work: halve the loop", map[string]string{"work/work.go": gitrepo.WorkSource(100000)})
	patch := r.Git("format-patch", "-1", "--stdout") + "\n"
	r.Git("reset", "-q", "--hard", older)
	r.Commit("move on", map[string]string{"work/work.go": strings.ReplaceAll(gitrepo.WorkSource(300000), "x := sink", "y := sink\n\tx := y")})
	if strings.Contains(patch, "base-commit") {
		t.Fatal("the patch names its base itself; the test needs the cover letter's")
	}
	opts := Options{Repo: r.Dir, CacheDir: t.TempDir(), NoSandbox: true, Tune: Tuning{Instrument: config.InstrumentWallTime, Count: 2, Benchtime: "20x"}}
	spec := jobspec.Spec{Key: "mail:cover@example.org/v1", Patch: patch, BaseCommit: older, Source: "mail"}
	out, err := Run(context.Background(), spec, opts)
	if err != nil {
		t.Fatal(err)
	}
	base := out.Comparison.Provenance.Sides[0]
	if base.Commit != older || !strings.HasPrefix(base.Why, "the series' base-commit (git format-patch --base), instead of HEAD") {
		t.Errorf("baseline side = %+v, want %s chosen by the series' base-commit", base, older)
	}
	if !out.Compared() {
		t.Errorf("nothing compared: %+v", out.Comparison.Failures)
	}

	spec.BaseRef = "HEAD"
	var pe *runner.PatchError
	if _, err := Run(context.Background(), spec, opts); !errors.As(err, &pe) {
		t.Errorf("with BaseRef HEAD: err = %v, want the patch not to apply on HEAD", err)
	}
	spec.BaseRef, spec.BaseCommit = "", "v1.0"
	if _, err := Run(context.Background(), spec, opts); !IsRequestError(err) || !strings.Contains(err.Error(), `base-commit "v1.0" is not a commit hash`) {
		t.Errorf("malformed base commit: err = %v, want a request error", err)
	}
}
