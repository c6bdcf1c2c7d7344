package gerrit

import "github.com/perfbot/perfbot/intake/command"

// Word is the command word of a change message's commands.
const Word = "/perfbot"

// ParseCommand finds perfbot's command in a change message, with the
// grammar of every venue (package intake/command). Gerrit's message text
// starts with its own line ("Patch Set 3:", "Patch Set 3:
// Code-Review+1", "(1 comment)"), so the command is a line of its own
// anywhere in the text, leading and trailing spaces ignored. Lines quoted
// with "> " are someone else's words and ignored. The first line
// addressed to perfbot decides; ok is false when there is none, and err
// explains a malformed command.
func ParseCommand(text string) (cmd command.Command, ok bool, err error) {
	return command.ParsePlain(text, Word)
}
