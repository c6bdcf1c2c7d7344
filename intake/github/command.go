// Package github turns "/perfbot ..." comments on GitHub pull requests and
// check run "Re-run" clicks into requests for intake.Admitter: from the
// webhook (signature-checked with go-github, deliveries de-duplicated) or
// by polling recent comments, with the commenter's permission checked
// before anything is queued, cancelled or described.
package github

import (
	"fmt"
	"strings"

	"github.com/perfbot/perfbot/intake/command"
	"github.com/perfbot/perfbot/report"
)

// Verbs of a command (package intake/command).
const (
	VerbRun        = command.VerbRun
	VerbHelp       = command.VerbHelp
	VerbCancel     = command.VerbCancel
	VerbStatus     = command.VerbStatus
	VerbFalseAlarm = command.VerbFalseAlarm
)

// Command is a parsed "/perfbot VERB ..." comment.
type Command = command.Command

// Usage is the answer to "/perfbot help" and to a malformed command, for
// the command word word.
func Usage(word string) string {
	return fmt.Sprintf("perfbot commands, one per comment line:\n\n"+
		"- `%[1]s run [SUITE...] [base=REF]`: benchmark this pull request against REF (default: the project branch), all suites or the ones named\n"+
		"- `%[1]s status`: list this pull request's queued and running benchmark jobs\n"+
		"- `%[1]s cancel`: cancel this pull request's queued and running benchmark jobs\n"+
		"- `%[1]s false-alarm BENCH... [-- REASON]`: mark the latest run's verdicts of these benchmarks false alarms, so that they need a larger change on that host to be called better or worse\n"+
		"- `%[1]s help`: show this text\n\n"+
		"Starting, cancelling, listing runs and marking false alarms need write permission on the repository (or a place on the trigger allow list).", word)
}

// ParseCommand finds the command in a Markdown comment body
// (command.ParseMarkdown).
func ParseCommand(body, word string) (Command, bool, error) {
	return command.ParseMarkdown(body, word)
}

// TextLines returns the lines of a Markdown comment shown as text
// (command.MarkdownLines).
func TextLines(body string) []string { return command.MarkdownLines(body) }

// QuoteLines makes text that holds outside words (a status naming pull
// request titles) safe in a GitHub Markdown reply, line by line
// (report.MarkdownEscape): no mention, reference, link, markup, HTML,
// control or bidirectional formatting character takes effect.
func QuoteLines(text string) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	for i, l := range lines {
		lines[i] = report.MarkdownEscape(l)
	}
	return strings.Join(lines, "\n")
}
