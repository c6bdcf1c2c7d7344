// Package gitpatch reads what git format-patch writes into a patch mail
// beyond the diff: the "base-commit:" line naming the commit the patch was
// made on. The mail intake reads it from a cover letter and the runner
// from patch files, so it sits below both.
package gitpatch

import (
	"bytes"
	"fmt"
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

// commitHash is a full SHA-1 or SHA-256 commit hash.
var commitHash = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([0-9a-f]{40}|[0-9a-f]{64})$`) })

// IsCommitHash reports whether s is a full SHA-1 or SHA-256 commit hash in
// lower case, as git writes them.
func IsCommitHash(s string) bool { return commitHash().MatchString(s) }

// mboxFrom starts each message of an mbox: "From <sha> Mon Sep 17 ...".
var mboxFrom = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^From \S+ (Mon|Tue|Wed|Thu|Fri|Sat|Sun) `) })

// BaseCommit returns the commit a mail patch names as its base: the last
// "base-commit: <sha>" line of its first message, where git format-patch
// --base writes it (after the diff, or in the cover letter, before the
// signature). name identifies the patch in errors. It returns "" when
// there is none, and a *BaseCommitError when the value is not a full
// commit hash. Lines of the later messages of an mbox are not read: git
// writes the line into the first one only.
func BaseCommit(data []byte, name string) (string, error) {
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
		if IsCommitHash(v) {
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
