package runner

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
)

// git runs git in dir and returns its trimmed standard output. Its error
// carries git's standard error.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = append(cmd.Environ(), "GIT_TERMINAL_PROMPT=0", "LC_ALL=C")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return "", &gitError{Args: args, Stderr: msg}
	}
	return strings.TrimSpace(stdout.String()), nil
}

type gitError struct {
	Args   []string
	Stderr string
}

func (e *gitError) Error() string {
	return fmt.Sprintf("git %s: %s", strings.Join(e.Args, " "), e.Stderr)
}

// identity lets git am and commit work without a configured user.
var identity = []string{"-c", "user.name=perfbot", "-c", "user.email=perfbot@localhost", "-c", "commit.gpgsign=false"}
