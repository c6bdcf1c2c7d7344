package track

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/perfbot/perfbot/store"
)

// Landing: how a request is linked to the commit that landed it.
//
//   - GitHub says so: the pull_request "closed" event with merged true
//     carries merge_commit_sha, recorded by the service (store.LandedMerged).
//   - Failing that, each tracked run's new first-parent commits are read:
//     a commit whose message names a pull request as GitHub's merge button
//     writes it ("Merge pull request #12 from ...", or a squashed subject
//     ending in "(#12)") landed that pull request (store.LandedMessage);
//     a commit whose git patch-id --stable equals a mailed patch's landed
//     that patch (store.LandedPatchID), however it was applied.
//
// The first matching commit, oldest first, wins.

// LandedCommit is a commit of a tracked branch as matching reads it.
type LandedCommit struct {
	Hash    string
	Message string
	// PatchID is git patch-id --stable of the commit's diff against its
	// first parent ("" for a commit without one, such as a merge).
	PatchID string
}

var (
	mergeSubject  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^Merge pull request #([0-9]+) from `) })
	squashSubject = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\(#([0-9]+)\)\s*$`) })
)

// PullNumber returns the pull request a commit message says it landed, as
// GitHub's merge or squash writes it, or 0.
func PullNumber(message string) int {
	subject, _, _ := strings.Cut(message, "\n")
	subject = strings.TrimSpace(subject)
	for _, re := range []*regexp.Regexp{mergeSubject(), squashSubject()} {
		if m := re.FindStringSubmatch(subject); m != nil {
			if n, err := strconv.Atoi(m[1]); err == nil && n > 0 {
				return n
			}
		}
	}
	return 0
}

// MatchLandings returns, for each open follow-up not yet landed, the
// commit among commits (oldest first) that landed it, and how. pullOf
// gives a follow-up's pull request number in the tracked repository (0:
// none, such as a pull request of another repository).
func MatchLandings(open []store.FollowUp, commits []LandedCommit, pullOf func(store.FollowUp) int) map[string][2]string {
	out := map[string][2]string{}
	for _, f := range open {
		if f.Landed != "" {
			continue
		}
		n := pullOf(f)
		for _, c := range commits {
			if n > 0 && PullNumber(c.Message) == n {
				out[f.Key] = [2]string{c.Hash, store.LandedMessage}
				break
			}
			if f.PatchID != "" && c.PatchID == f.PatchID {
				out[f.Key] = [2]string{c.Hash, store.LandedPatchID}
				break
			}
		}
	}
	return out
}

// gitEnv is the scrubbed environment of the git commands matching runs.
func gitEnv() []string {
	return []string{"PATH=" + os.Getenv("PATH"), "LC_ALL=C", "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=/dev/null", "HOME=/nonexistent", "GIT_CEILING_DIRECTORIES=/"}
}

func git(ctx context.Context, dir string, stdin []byte, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", append([]string{"-c", "safe.directory=*", "-c", "core.fsmonitor=false"}, args...)...)
	cmd.Dir, cmd.Env = dir, gitEnv()
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return nil, fmt.Errorf("git %s: %s", args[0], strings.TrimSpace(stderr.String()))
		}
		return nil, fmt.Errorf("git %s: %w", args[0], err)
	}
	return out, nil
}

// PatchID returns git patch-id --stable of a patch (a mail, a diff); ""
// when it holds no diff.
func PatchID(ctx context.Context, patch []byte) (string, error) {
	// No repository is needed: from the root, with discovery stopped
	// there, no directory's .git (and its config) is read.
	out, err := git(ctx, "/", patch, "patch-id", "--stable")
	if err != nil {
		return "", err
	}
	id, _, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	return id, nil
}

// Commits reads the first-parent commits of the repository in dir after
// from up to and including to, oldest first, with their messages and
// patch-ids.
func Commits(ctx context.Context, dir, from, to string) ([]LandedCommit, error) {
	for _, r := range []string{from, to} {
		if strings.HasPrefix(r, "-") || r == "" {
			return nil, fmt.Errorf("commits of %s: %q is not a revision", dir, r)
		}
	}
	out, err := git(ctx, dir, nil, "rev-list", "--first-parent", "--reverse", from+".."+to, "--")
	if err != nil {
		return nil, fmt.Errorf("commits of %s: %w", dir, err)
	}
	var commits []LandedCommit
	for _, h := range strings.Fields(string(out)) {
		msg, err := git(ctx, dir, nil, "log", "-1", "--format=%B", h, "--")
		if err != nil {
			return nil, fmt.Errorf("commit %s: %w", h, err)
		}
		c := LandedCommit{Hash: h, Message: string(msg)}
		diff, err := git(ctx, dir, nil, "diff-tree", "-p", "--no-color", "--no-ext-diff", "--no-textconv", "--root", h, "--")
		if err != nil {
			return nil, fmt.Errorf("commit %s: %w", h, err)
		}
		if c.PatchID, err = PatchID(ctx, diff); err != nil {
			return nil, fmt.Errorf("commit %s: %w", h, err)
		}
		commits = append(commits, c)
	}
	return commits, nil
}

// IsAncestor reports whether commit a is b or an ancestor of b in the
// repository in dir.
func IsAncestor(ctx context.Context, dir, a, b string) bool {
	if a == "" || b == "" || strings.HasPrefix(a, "-") || strings.HasPrefix(b, "-") {
		return false
	}
	_, err := git(ctx, dir, nil, "merge-base", "--is-ancestor", a, b)
	return err == nil
}
