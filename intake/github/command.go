// Package github turns "/perfbot run" comments on GitHub pull requests into
// benchmark jobs: from the issue_comment webhook (signature-checked,
// deliveries de-duplicated) or by polling recent comments, with the
// commenter's permission checked before anything is queued.
package github

import (
	"fmt"
	"regexp"
	"strings"
)

// Command is a parsed "/perfbot run [SUITE...] [base=REF]" comment.
type Command struct {
	// Suites are the suites asked for; empty means all.
	Suites []string
	// Base is the baseline ref asked for; empty means the pull request's
	// base branch.
	Base string
}

var suiteName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
var refName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._/-]*$`)

// ParseCommand finds the command in a comment body: the first line that
// starts with word (such as "/perfbot"). ok is false when there is none;
// err explains a command that is malformed.
func ParseCommand(body, word string) (cmd Command, ok bool, err error) {
	for _, line := range strings.Split(body, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || f[0] != word {
			continue
		}
		if len(f) < 2 || f[1] != "run" {
			return Command{}, true, fmt.Errorf("unknown command; write `%s run [SUITE...] [base=REF]`", word)
		}
		for _, a := range f[2:] {
			if ref, isBase := strings.CutPrefix(a, "base="); isBase {
				if !refName.MatchString(ref) || strings.Contains(ref, "..") {
					return Command{}, true, fmt.Errorf("base=%q is not a valid ref name", ref)
				}
				cmd.Base = ref
				continue
			}
			if !suiteName.MatchString(a) {
				return Command{}, true, fmt.Errorf("%q is not a suite name", a)
			}
			cmd.Suites = append(cmd.Suites, a)
		}
		return cmd, true, nil
	}
	return Command{}, false, nil
}
