package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/internal/gitrepo"
)

func TestPatchBaseCommit(t *testing.T) {
	const a, b = "63c6e1e4308746250d145794f1c6b9d41d7886a1", "0123456789abcdef0123456789abcdef01234567"
	head := "From 2f0d5600c83b16a7caeb4285129e00f6ed4d5d3c Mon Sep 17 00:00:00 2001\nFrom: Dev <dev@example.org>\nSubject: [PATCH] x\n\n"
	diff := "---\n a | 1 +\n\ndiff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -1 +1,2 @@\n a\n+b\n"
	for _, c := range []struct {
		name, text, want, err string
	}{
		{"none", head + "msg\n" + diff + "-- \n2.47.1\n", "", ""},
		{"after the diff", head + "msg\n" + diff + "\nbase-commit: " + a + "\n-- \n2.47.1\n", a, ""},
		{"CRLF", strings.ReplaceAll(head+diff+"\nbase-commit: "+a+"\n-- \n", "\n", "\r\n"), a, ""},
		{"the last one wins over one in the message", head + "base-commit: " + b + "\n" + diff + "\nbase-commit: " + a + "\n-- \n", a, ""},
		{"only the first message counts", head + diff + "-- \n2.47.1\n\n" + head + diff + "\nbase-commit: " + a + "\n-- \n", "", ""},
		{"the mbox the mail intake writes", "From perfbot Mon Sep 17 00:00:00 2001\n" + head[strings.Index(head, "\n")+1:] + diff + "\nbase-commit: " + a + "\n-- \n\nFrom perfbot Mon Sep 17 00:00:00 2001\n" + head + diff + "\nbase-commit: " + b + "\n", a, ""},
		{"after a line of 2 MiB", head + diff + "+" + strings.Repeat("x", 2<<20) + "\n\nbase-commit: " + a + "\n", a, ""},
		{"a diff's added line is not one", head + diff + "+base-commit: " + a + "\n", "", ""},
		{"abbreviated", head + diff + "\nbase-commit: 63c6e1e\n", "", `change.patch:15: base-commit "63c6e1e" is not a commit hash`},
		{"an option", head + diff + "\nbase-commit: --upload-pack=touch /tmp/x\n", "", `base-commit "--upload-pack=touch /tmp/x" is not a commit hash`},
		{"upper case", head + diff + "\nbase-commit: " + strings.ToUpper(a) + "\n", "", "is not a commit hash"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := PatchBaseCommit([]byte(c.text), "change.patch")
			if c.err != "" {
				var be *BaseCommitError
				if !errors.As(err, &be) || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want a BaseCommitError with %q", err, c.err)
				}
				return
			}
			if err != nil || got != c.want {
				t.Errorf("PatchBaseCommit = %q, %v; want %q", got, err, c.want)
			}
		})
	}
}

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
	var be *BaseCommitError
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
