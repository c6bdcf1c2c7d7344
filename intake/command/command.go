// Package command parses the "/perfbot VERB ..." commands of every
// venue's comments (GitHub and GitLab comments, Gerrit change messages):
// one grammar, so that a command means the same wherever it is written.
// Each venue finds the lines a reader sees as text (MarkdownLines,
// PlainLines) and Parse reads the first one addressed to perfbot.
package command

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// Verbs of a command.
const (
	VerbRun    = "run"
	VerbHelp   = "help"
	VerbCancel = "cancel"
	VerbStatus = "status"
	// VerbFalseAlarm marks verdicts of the latest run as false alarms.
	VerbFalseAlarm = "false-alarm"
)

// Command is a parsed "/perfbot VERB ..." comment.
type Command struct {
	// Verb is VerbRun, VerbHelp, VerbCancel, VerbStatus or VerbFalseAlarm.
	Verb string
	// Suites are the suites asked for; empty means all (run only).
	Suites []string
	// Base is the baseline ref asked for; empty means the project branch
	// (run only).
	Base string
	// Benches are the benchmarks marked false alarms, as the answer names
	// them, and Reason the text after "--" (false-alarm only).
	Benches []string
	Reason  string
}

var suiteName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`) })
var benchName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._/=:,+-]*$`) })
var refName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._/-]*$`) })

// ParseMarkdown finds the command in a Markdown comment body (GitHub's,
// GitLab's): Parse of its MarkdownLines.
func ParseMarkdown(body, word string) (cmd Command, ok bool, err error) {
	return Parse(MarkdownLines(body), word)
}

// ParsePlain finds the command in a plain-text message (a Gerrit change
// message): Parse of its PlainLines.
func ParsePlain(text, word string) (cmd Command, ok bool, err error) {
	return Parse(PlainLines(text), word)
}

// Parse finds the command among lines a reader sees as text: the first
// line whose first word is word (such as "/perfbot"). ok is false when
// there is none; err explains a command that is malformed.
func Parse(lines []string, word string) (cmd Command, ok bool, err error) {
	for _, line := range lines {
		f := strings.Fields(line)
		if len(f) == 0 || f[0] != word {
			continue
		}
		if len(f) < 2 {
			return Command{}, true, fmt.Errorf("no command after %s; write `%s help` for the commands", word, word)
		}
		switch f[1] {
		case VerbHelp, VerbCancel, VerbStatus:
			if len(f) > 2 {
				return Command{}, true, fmt.Errorf("`%s %s` takes no arguments", word, f[1])
			}
			return Command{Verb: f[1]}, true, nil
		case VerbFalseAlarm:
			return parseFalseAlarm(line, f, word)
		case VerbRun:
		default:
			return Command{}, true, fmt.Errorf("unknown command; write `%s help` for the commands", word)
		}
		cmd.Verb = VerbRun
		for _, a := range f[2:] {
			if ref, isBase := strings.CutPrefix(a, "base="); isBase {
				if !refName().MatchString(ref) || strings.Contains(ref, "..") {
					return Command{}, true, fmt.Errorf("base=%q is not a valid ref name", ref)
				}
				cmd.Base = ref
				continue
			}
			if !suiteName().MatchString(a) {
				return Command{}, true, fmt.Errorf("%q is not a suite name", a)
			}
			cmd.Suites = append(cmd.Suites, a)
		}
		return cmd, true, nil
	}
	return Command{}, false, nil
}

// parseFalseAlarm reads "WORD false-alarm BENCH... [-- REASON]" from a
// line and its fields f.
func parseFalseAlarm(line string, f []string, word string) (Command, bool, error) {
	cmd := Command{Verb: VerbFalseAlarm}
	for i, a := range f[2:] {
		if a == "--" {
			_, after, _ := strings.Cut(line, " -- ")
			if i+3 == len(f) {
				after = ""
			}
			cmd.Reason = strings.TrimSpace(after)
			break
		}
		if !benchName().MatchString(a) || len(a) > 200 {
			return Command{}, true, fmt.Errorf("%q is not a benchmark name; write `%s false-alarm BENCH... [-- REASON]`", a, word)
		}
		cmd.Benches = append(cmd.Benches, a)
	}
	if len(cmd.Benches) == 0 {
		return Command{}, true, fmt.Errorf("name the benchmarks to mark, as the answer shows them: `%s false-alarm BENCH... [-- REASON]`", word)
	}
	if len(cmd.Reason) > 500 {
		cmd.Reason = strings.ToValidUTF8(cmd.Reason[:500], "")
	}
	return cmd, true, nil
}

// MarkdownLines returns the lines of a Markdown comment (GitHub's, GitLab's)
// that are shown as text: HTML comments ("<!-- ... -->", which are not
// shown at all; an unclosed one runs to the end) are cut out, and the
// lines of fenced code blocks (opened by three or more backticks or
// tildes, indented less than four spaces, closed by a fence of the same
// character at least as long, or the end) and lines indented four spaces
// or a tab (an indented code block, or the continuation of a paragraph,
// never the start of a line of text) are left out, as are the fences.
func MarkdownLines(body string) []string {
	var b strings.Builder
	for {
		i := strings.Index(body, "<!--")
		if i < 0 {
			b.WriteString(body)
			break
		}
		b.WriteString(body[:i])
		j := strings.Index(body[i+4:], "-->")
		if j < 0 {
			break
		}
		body = body[i+4+j+3:]
	}
	var out []string
	fence := ""
	for _, line := range strings.Split(strings.ReplaceAll(b.String(), "\r\n", "\n"), "\n") {
		indent := len(line) - len(strings.TrimLeft(line, " "))
		rest := line[indent:]
		if fence != "" {
			if indent < 4 && strings.HasPrefix(rest, fence) && strings.Trim(rest, fence[:1]+" \t") == "" {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(line, "\t") || indent >= 4 {
			continue
		}
		if f := openingFence(rest); f != "" {
			fence = f
			continue
		}
		out = append(out, line)
	}
	return out
}

// openingFence is the fence a line opens (its run of three or more
// backticks or tildes), or "".
func openingFence(line string) string {
	for _, c := range []string{"`", "~"} {
		n := len(line) - len(strings.TrimLeft(line, c))
		if n >= 3 {
			if c == "`" && strings.Contains(line[n:], "`") {
				return "" // a backtick fence's info string has no backtick
			}
			return line[:n]
		}
	}
	return ""
}

// PlainLines returns the lines of a plain-text message that are the
// writer's own: lines quoted with ">" (someone else's words) are left out.
// Gerrit's message text starts with its own line ("Patch Set 3:"), so a
// command is a line of its own anywhere in the text.
func PlainLines(text string) []string {
	var out []string
	for _, line := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), ">") {
			continue
		}
		out = append(out, line)
	}
	return out
}
