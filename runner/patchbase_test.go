package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/internal/gitpatch"
	"github.com/perfbot/perfbot/internal/gitrepo"
)

// basePatch makes a mail patch that halves Work's loop on top of the
// repository's HEAD, as git format-patch --base=base writes it, and
// returns its path; HEAD is left as it was.
func basePatch(t *testing.T, r *gitrepo.Repo, base string) string {
	t.Helper()
	head := r.Git("rev-parse", "HEAD")
	r.Commit("work: halve the loop", map[string]string{"work/work.go": gitrepo.WorkSource(100000)})
	data := r.Git("format-patch", "-1", "--stdout", "--base="+base) + "\n"
	r.Git("reset", "-q", "--hard", head)
	p := filepath.Join(t.TempDir(), "halve.patch")
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRunPatchBaseCommit: a patch made on an older commit, which no
// longer applies on HEAD, is measured against the commit it names.
func TestRunPatchBaseCommit(t *testing.T) {
	r := newWorkRepo(t, true)
	older := r.Git("rev-parse", "HEAD")
	patch := basePatch(t, r, older)
	r.Commit("move on", map[string]string{"work/work.go": strings.ReplaceAll(gitrepo.WorkSource(300000), "x := sink", "y := sink\n\tx := y")})
	opts := testOptions(t, r.Dir, Candidate{Name: "patch", Patch: patch})
	opts.Suites[0].Count = 2
	// Without BaseFromPatch the baseline is HEAD, where it does not apply.
	var pe *PatchError
	if _, err := Run(context.Background(), opts); !errors.As(err, &pe) {
		t.Fatalf("err = %v, want a PatchError on HEAD", err)
	}
	opts.BaseFromPatch = true
	out, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Failures) > 0 {
		t.Fatalf("failures: %+v", out.Failures)
	}
	base := out.Provenance.Sides[0]
	if base.Commit != older || base.Ref != "" || base.Why != "the patch's base-commit (git format-patch --base), instead of HEAD ("+short(r.Git("rev-parse", "HEAD"))+")" {
		t.Errorf("baseline side = %+v, want %s chosen by the patch's base-commit", base, older)
	}
	if p := out.Provenance.Sides[1]; p.Ref != older {
		t.Errorf("patch side = %+v, want it applied on %s", p, older)
	}
	if m := medians(out.Results); len(m["base Work"]) != 2 || len(m["patch Work"]) != 2 {
		t.Errorf("samples %v", keys(m))
	}
}

// TestRunPatchBaseCommitUnknown: a base commit the repository lacks
// leaves the baseline as configured, with a note; a malformed one is
// refused.
func TestRunPatchBaseCommitUnknown(t *testing.T) {
	r := newWorkRepo(t, true)
	head := r.Git("rev-parse", "HEAD")
	const unknown = "0123456789abcdef0123456789abcdef01234567"
	patch := basePatch(t, r, head)
	data, err := os.ReadFile(patch)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(patch, []byte(strings.Replace(string(data), "base-commit: "+head, "base-commit: "+unknown, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := testOptions(t, r.Dir, Candidate{Name: "patch", Patch: patch})
	opts.Suites[0].Count, opts.BaseFromPatch = 2, true
	out, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if out.Provenance.Sides[0].Commit != head || out.Provenance.Sides[0].Why != "" {
		t.Errorf("baseline side = %+v, want HEAD %s", out.Provenance.Sides[0], head)
	}
	want := "The patch names base-commit 0123456789ab (git format-patch --base), which is not in the repository, so the patch was applied on HEAD (" + short(head) + ") instead"
	if w := strings.Join(out.Warnings, "\n"); !strings.Contains(w, want) {
		t.Errorf("warnings:\n%s\nwant\n%s", w, want)
	}

	if err := os.WriteFile(patch, []byte(strings.Replace(string(data), "base-commit: "+head, "base-commit: HEAD~1", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), opts)
	var be *gitpatch.BaseCommitError
	if !errors.As(err, &be) || be.Value != "HEAD~1" {
		t.Errorf("err = %v, want a BaseCommitError for HEAD~1", err)
	}
}

// TestResolveBaseFetches: a remote's commit that no fetched branch or tag
// reaches (a patch made on a commit later rewritten away) is fetched by
// its hash.
func TestResolveBaseFetches(t *testing.T) {
	r := gitrepo.New(t)
	r.Commit("one", map[string]string{"a": "1\n"})
	old := r.Commit("two", map[string]string{"a": "2\n"})
	r.Git("update-ref", "refs/keep/old", old)
	r.Git("reset", "-q", "--hard", "HEAD~1")
	ws, err := OpenWorkspace(context.Background(), "file://"+r.Dir, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if _, err := ws.Resolve(context.Background(), old); err == nil {
		t.Fatal("the clone has the commit already; the test needs one it must fetch")
	}
	if got := ws.resolveBase(context.Background(), old); got != old {
		t.Errorf("resolveBase = %q, want %s fetched", got, old)
	}
	if got := ws.resolveBase(context.Background(), "0123456789abcdef0123456789abcdef01234567"); got != "" {
		t.Errorf("resolveBase of an unknown commit = %q", got)
	}
}
