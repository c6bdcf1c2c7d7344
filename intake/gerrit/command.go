package gerrit

import "strings"

// Command is what a change message asks of perfbot.
type Command int

// Commands a change message can hold.
const (
	NoCommand Command = iota // no line addressed to perfbot
	Run                      // "/perfbot run"
	Unknown                  // "/perfbot" followed by anything else
)

// ParseCommand finds perfbot's command in a change message. Gerrit's
// message text starts with its own line ("Patch Set 3:", "Patch Set 3:
// Code-Review+1", "(1 comment)"), so the command is a line of its own
// anywhere in the text: "/perfbot run", leading and trailing spaces
// ignored, case as written. Lines quoted with "> " are someone else's
// words and ignored. The first line addressed to perfbot decides.
func ParseCommand(text string) Command {
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, ">") {
			continue
		}
		rest, ok := strings.CutPrefix(line, "/perfbot")
		if !ok || rest != "" && rest[0] != ' ' && rest[0] != '\t' {
			continue
		}
		if strings.Join(strings.Fields(rest), " ") == "run" {
			return Run
		}
		return Unknown
	}
	return NoCommand
}
