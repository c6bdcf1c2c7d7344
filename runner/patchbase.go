package runner

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/perfbot/perfbot/internal/gitpatch"
)

// MissingCommitError is a candidate's pinned commit that the source no
// longer has (a force-push left it unreachable and it was collected, or it
// was never pushed there).
type MissingCommitError struct {
	Commit, Ref, Source string
}

func (e *MissingCommitError) Error() string {
	return fmt.Sprintf("commit %s, the one the request was approved for as %s, is no longer in %s (the branch was force-pushed and the commit is gone): nothing was measured; a new run of the branch's head needs a new request", e.Commit, e.Ref, e.Source)
}

// patchBase picks the baseline the patches of opts name: opts.PatchBase,
// else the base-commit line their patch files share. why says where it
// came from; both are "" when none names one. Patches that name different
// commits leave the baseline as configured, with a note.
func patchBase(opts Options) (sha, why, note string, err error) {
	if opts.PatchBase != "" {
		if !gitpatch.IsCommitHash(opts.PatchBase) {
			return "", "", "", &gitpatch.BaseCommitError{Patch: "the series' cover letter", Value: opts.PatchBase}
		}
		return opts.PatchBase, "the series' base-commit (git format-patch --base)", "", nil
	}
	named := map[string][]string{}
	var order []string
	for _, c := range opts.Candidates {
		if c.Patch == "" {
			continue
		}
		data, err := os.ReadFile(resolvePatch(c.Patch, opts.Repo))
		if err != nil {
			return "", "", "", fmt.Errorf("patch %s: %w", c.Patch, err)
		}
		s, err := gitpatch.BaseCommit(data, c.Patch)
		if err != nil {
			return "", "", "", err
		}
		if s == "" {
			continue
		}
		if named[s] == nil {
			order = append(order, s)
		}
		named[s] = append(named[s], c.Patch)
	}
	switch len(order) {
	case 0:
		return "", "", "", nil
	case 1:
		return order[0], "the patch's base-commit (git format-patch --base)", "", nil
	}
	var parts []string
	for _, s := range order {
		parts = append(parts, fmt.Sprintf("%s names %s", strings.Join(named[s], ", "), short(s)))
	}
	return "", "", fmt.Sprintf("the patches name different base commits (%s); all were measured against %s", strings.Join(parts, "; "), opts.Base), nil
}

// resolveBase resolves the commit a patch names as its base, fetching it
// from a remote source when no fetched ref has it. It returns "" when the
// repository does not have it.
func (w *Workspace) resolveBase(ctx context.Context, sha string) string {
	if c, err := w.Resolve(ctx, sha); err == nil {
		return c
	}
	if w.local != "" {
		return ""
	}
	args := append(append([]string{"--git-dir=" + w.bare}, w.fetchOpts()...), "fetch", "--quiet", "--no-recurse-submodules", "--", w.Source, sha)
	if _, err := runGit(ctx, w.bare, w.fetchEnv(), args...); err != nil {
		return ""
	}
	if c, err := w.Resolve(ctx, sha); err == nil {
		return c
	}
	return ""
}
