package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"mime"
	"net/mail"
	"os"
	"regexp"
	"strings"
	"sync"

	"github.com/emersion/go-message/charset"
)

// PatchError is a patch that does not apply, or that perfbot refuses to
// apply: the CLI exits with status 2.
type PatchError struct {
	Patch string
	// Failures name each file and hunk that did not apply, as
	// "store/scan.go: hunk at line 12".
	Failures []string
	Detail   string
	// Refused says why the patch was not applied: it goes past a limit
	// (PatchLimits), which the message names with its config key.
	Refused string
}

func (e *PatchError) Error() string {
	if e.Refused != "" {
		return fmt.Sprintf("patch %s refused: %s", e.Patch, e.Refused)
	}
	msg := fmt.Sprintf("patch %s does not apply", e.Patch)
	if len(e.Failures) > 0 {
		msg += ": " + strings.Join(e.Failures, "; ")
	}
	if e.Detail != "" {
		msg += "\n" + e.Detail
	}
	return msg
}

// mboxSeparator matches the first line of an mbox: "From <sha> ".
var mboxSeparator = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^From [0-9a-f]{40} `) })

// isMailPatch reports whether a patch is in mailbox format (git
// format-patch, a mailing-list mail), which git am applies with its
// commit message.
func isMailPatch(data []byte) bool {
	if mboxSeparator().Match(data) {
		return true
	}
	// A mail without the mbox separator: headers up to the first blank
	// line, among them From: and Subject:.
	head, _, _ := bytes.Cut(data, []byte("\n\n"))
	return bytes.Contains(head, []byte("\nSubject: ")) && (bytes.HasPrefix(head, []byte("From: ")) || bytes.Contains(head, []byte("\nFrom: ")))
}

// patchSubject is a patch's one-line title: the mail subject (unfolded,
// RFC 2047 encoded words decoded) without its [PATCH] tags, or "" for a
// plain diff.
func patchSubject(data []byte) string {
	if !isMailPatch(data) {
		return ""
	}
	// Drop the mbox separator line ("From <sha> <date>") before the
	// headers.
	if mboxSeparator().Match(data) {
		_, data, _ = bytes.Cut(data, []byte("\n"))
	}
	msg, err := mail.ReadMessage(bytes.NewReader(data))
	if err != nil {
		return ""
	}
	raw := msg.Header.Get("Subject")
	dec := mime.WordDecoder{CharsetReader: charset.Reader}
	subject, err := dec.DecodeHeader(raw)
	if err != nil {
		subject = raw
	}
	subject = strings.Join(strings.Fields(subject), " ")
	return patchTags().ReplaceAllString(subject, "")
}

// patchTags are the bracketed tags before a patch mail's subject:
// "[PATCH v2 1/3] ", "[RFC][PATCH] ".
var patchTags = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\[[^\]]*\]\s*)+`) })

var patchFailed = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^error: patch failed: (.+):(\d+)$`) })
var patchNoApply = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^error: (.+): (patch does not apply|does not exist in index|already exists in working directory|No such file or directory)$`)
})

// applyPatch applies the patch file in the worktree and commits it, so
// that the worktree's HEAD is the patched tree. git runs with the worktree's
// git dir named explicitly and no hooks (see worktree.git). A patch over
// lim is refused before git sees it (scanPatch), and git apply or am runs
// under lim's rlimits; either way the error is a *PatchError that names
// the limit.
func applyPatch(ctx context.Context, t worktree, patchFile string, lim PatchLimits) (subject string, err error) {
	lim = lim.orDefault()
	data, err := os.ReadFile(patchFile)
	if err != nil {
		return "", fmt.Errorf("read patch: %w", err)
	}
	subject = patchSubject(data)
	shape, err := scanPatch(data, lim)
	if err != nil {
		return subject, &PatchError{Patch: patchFile, Refused: err.Error()}
	}
	copied, err := copiedBytes(ctx, t, shape.copies)
	if err != nil {
		return subject, err
	}
	if total := shape.binary + copied; total > lim.Memory {
		return subject, &PatchError{Patch: patchFile, Refused: fmt.Sprintf("its binary hunks and copied files come to %s, more than %s, the memory applying a patch may use (sandbox.memory)", sizeText(total), sizeText(lim.Memory))}
	}
	rl := gitLimits{fileSize: lim.MaxFileSize, data: lim.Memory}
	if isMailPatch(data) {
		_, err = t.gitLimited(ctx, rl, append(identity, "am", "--3way", "--quiet", patchFile)...)
		if err != nil {
			_, _ = t.git(ctx, "am", "--abort")
			return subject, patchError(ctx, t, patchFile, lim, err)
		}
		return subject, nil
	}
	if _, err := t.gitLimited(ctx, rl, "apply", "--3way", "--index", "--whitespace=nowarn", patchFile); err != nil {
		_, _ = t.git(ctx, "reset", "--quiet", "--hard")
		return subject, patchError(ctx, t, patchFile, lim, err)
	}
	msg := "perfbot: apply " + patchFile
	if subject != "" {
		msg = subject
	}
	if _, err := t.git(ctx, append(identity, "commit", "--quiet", "--no-verify", "--allow-empty", "-m", msg)...); err != nil {
		return subject, fmt.Errorf("commit patched tree: %w", err)
	}
	return subject, nil
}

// patchError explains why a patch failed: a three-way apply reports only
// conflicted files, so a plain check is run to name each failing hunk. A
// git stopped by a limit is named with the limit and its config key.
func patchError(ctx context.Context, t worktree, patchFile string, lim PatchLimits, err error) error {
	var le *gitLimitError
	if errors.As(err, &le) {
		return &PatchError{Patch: patchFile, Refused: limitMessage(le, lim)}
	}
	var ge *gitError
	if !errors.As(err, &ge) {
		return err
	}
	pe := &PatchError{Patch: patchFile}
	detail := ge.Stderr
	if _, cerr := t.gitLimited(ctx, gitLimits{fileSize: lim.MaxFileSize, data: lim.Memory}, "apply", "--check", patchFile); cerr != nil {
		if errors.As(cerr, &le) {
			return &PatchError{Patch: patchFile, Refused: limitMessage(le, lim)}
		}
		var ce *gitError
		if errors.As(cerr, &ce) {
			detail = ce.Stderr + "\n" + detail
		}
	}
	seen := map[string]bool{}
	for _, m := range patchFailed().FindAllStringSubmatch(detail, -1) {
		f := fmt.Sprintf("%s: hunk at line %s", m[1], m[2])
		if !seen[f] {
			seen[f] = true
			pe.Failures = append(pe.Failures, f)
		}
	}
	for _, m := range patchNoApply().FindAllStringSubmatch(detail, -1) {
		f := fmt.Sprintf("%s: %s", m[1], m[2])
		if !seen[f] && !hunkNamed(pe.Failures, m[1]) {
			seen[f] = true
			pe.Failures = append(pe.Failures, f)
		}
	}
	if len(pe.Failures) == 0 {
		pe.Detail = detail
	}
	return pe
}

// limitMessage says which limit stopped git while it applied a patch.
func limitMessage(le *gitLimitError, lim PatchLimits) string {
	if le.Limit == "file size" {
		return fmt.Sprintf("git %s would write a file larger than %s, the largest file a patch may make (sandbox.max_file_size)", le.Args[0], sizeText(lim.MaxFileSize))
	}
	return fmt.Sprintf("git %s ran out of the %s of memory applying a patch may use (sandbox.memory): %s", le.Args[0], sizeText(lim.Memory), truncate(le.Stderr, 200))
}

// changedFile is a file the patch adds or modifies, with its mode in
// the patched commit.
type changedFile struct {
	path string
	// mode is git's: "100644", "100755", "120000" for a symbolic link,
	// "160000" for a submodule.
	mode string
}

// regular reports whether the file is a regular file in git's eyes.
func (c changedFile) regular() bool {
	return c.mode == "100644" || c.mode == "100755"
}

// changedFiles lists the files the commit HEAD adds or modifies relative
// to base, with their modes.
func changedFiles(ctx context.Context, t worktree, base string) ([]changedFile, error) {
	out, err := t.git(ctx, "diff", "--raw", "-z", "--diff-filter=AM", "--no-renames", base, "HEAD")
	if err != nil {
		return nil, err
	}
	// Each entry is ":oldmode newmode oldsha newsha status" NUL path NUL.
	fields := strings.Split(strings.TrimSuffix(out, "\x00"), "\x00")
	var files []changedFile
	for i := 0; i+1 < len(fields); i += 2 {
		meta := strings.Fields(strings.TrimPrefix(fields[i], ":"))
		if len(meta) < 5 {
			return nil, fmt.Errorf("git diff --raw: unexpected entry %q", fields[i])
		}
		files = append(files, changedFile{path: fields[i+1], mode: meta[1]})
	}
	return files, nil
}

func hunkNamed(failures []string, file string) bool {
	for _, f := range failures {
		if strings.HasPrefix(f, file+": hunk") {
			return true
		}
	}
	return false
}
