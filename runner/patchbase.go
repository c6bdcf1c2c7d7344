package runner

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
)

// BaseCommitError is a "base-commit:" line that names no commit hash.
type BaseCommitError struct {
	// Patch names the patch, Line is the line's number in it (1-based;
	// 0 when unknown).
	Patch string
	Line  int
	Value string
}

func (e *BaseCommitError) Error() string {
	where := e.Patch
	if e.Line > 0 {
		where = fmt.Sprintf("%s:%d", e.Patch, e.Line)
	}
	return fmt.Sprintf("%s: base-commit %q is not a commit hash: 40 (or 64) hexadecimal digits were expected, as git format-patch --base writes them", where, e.Value)
}

// MissingCommitError is a candidate's pinned commit that the source no
// longer has (a force-push left it unreachable and it was collected, or it
// was never pushed there).
type MissingCommitError struct {
	Commit, Ref, Source string
}

func (e *MissingCommitError) Error() string {
	return fmt.Sprintf("commit %s, the one the request was approved for as %s, is no longer in %s (the branch was force-pushed and the commit is gone): nothing was measured; a new run of the branch's head needs a new request", e.Commit, e.Ref, e.Source)
}

// commitHash is a full SHA-1 or SHA-256 commit hash.
var commitHash = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([0-9a-f]{40}|[0-9a-f]{64})$`) })

// mboxFrom starts each message of an mbox: "From <sha> Mon Sep 17 ...".
var mboxFrom = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^From \S+ (Mon|Tue|Wed|Thu|Fri|Sat|Sun) `) })

// PatchBaseCommit returns the commit a mail patch names as its base: the
// last "base-commit: <sha>" line of its first message, where git
// format-patch --base writes it (after the diff, or in the cover letter,
// before the signature). name identifies the patch in errors. It returns
// "" when there is none, and a *BaseCommitError when the value is not a
// full commit hash. Lines of the later messages of an mbox are not read:
// git writes the line into the first one only.
func PatchBaseCommit(data []byte, name string) (string, error) {
	sha := ""
	var bad *BaseCommitError
	prevBlank := false
	for n := 1; len(data) > 0; n++ {
		var line []byte
		line, data, _ = bytes.Cut(data, []byte("\n"))
		l := strings.TrimRight(string(line), "\r")
		if n > 1 && prevBlank && mboxFrom().MatchString(l) {
			break
		}
		prevBlank = l == ""
		v, ok := strings.CutPrefix(l, "base-commit:")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		if commitHash().MatchString(v) {
			sha, bad = v, nil
			continue
		}
		if len(v) > 80 {
			v = v[:80] + "..."
		}
		sha, bad = "", &BaseCommitError{Patch: name, Line: n, Value: v}
	}
	if bad != nil {
		return "", bad
	}
	return sha, nil
}

// patchBase picks the baseline the patches of opts name: opts.PatchBase,
// else the base-commit line their patch files share. why says where it
// came from; both are "" when none names one. Patches that name different
// commits leave the baseline as configured, with a note.
func patchBase(opts Options) (sha, why, note string, err error) {
	if opts.PatchBase != "" {
		if !commitHash().MatchString(opts.PatchBase) {
			return "", "", "", &BaseCommitError{Patch: "the series' cover letter", Value: opts.PatchBase}
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
		s, err := PatchBaseCommit(data, c.Patch)
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
