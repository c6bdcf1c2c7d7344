package venue

import (
	"fmt"
	"strings"

	"github.com/perfbot/perfbot/answer"
)

// ShortCommit is a commit id's short form, as git shows it (seven hex
// digits).
func ShortCommit(id string) string {
	if len(id) > 7 {
		return id[:7]
	}
	return id
}

// HeadMoved is the line an answer carries when the change's head is no
// longer the commit that was measured: the result speaks for measured
// only, and command is what asks for a run of the new head. what names
// the change ("pull request", "merge request").
func HeadMoved(measured, head, what, command string) string {
	return fmt.Sprintf("measured %s; the %s's head is now %s: a new run needs a new %s", ShortCommit(measured), what, ShortCommit(head), command)
}

// AddNote returns msg with note as a paragraph of its own after the first
// line (the headline) of its renderings in format f, full and short.
func AddNote(msg answer.Answer, f answer.Format, note string) answer.Answer {
	r, ok := msg.Renderings[f]
	if !ok {
		return msg
	}
	add := func(s string) string {
		if s == "" {
			return ""
		}
		first, rest, _ := strings.Cut(s, "\n")
		return first + "\n\n" + note + "\n\n" + strings.TrimLeft(rest, "\n")
	}
	msg.Set(f, answer.Rendering{Full: add(r.Full), Short: add(r.Short)})
	return msg
}

// StatusCommit is the commit an answer's commit status goes on, head being
// the change's head now: the measured commit when the answer has one;
// else, for a state that is no verdict (queued, running, an error, a
// cancellation, none of which passes a check), the head; else none. ""
// means no status.
func StatusCommit(msg answer.Answer, head string) string {
	switch {
	case msg.State == "":
		return ""
	case msg.Commit != "":
		return msg.Commit
	case msg.State == answer.StateSuccess || msg.State == answer.StateFailure:
		return ""
	}
	return head
}

// WithHeadNote returns msg with a quoted line after the headline of its
// renderings in format f saying that the change's head (what: "pull
// request", "merge request") is no longer the measured commit, when head
// is another commit than msg.Commit.
func WithHeadNote(msg answer.Answer, f answer.Format, head, what string) answer.Answer {
	if msg.Commit == "" || head == "" || strings.EqualFold(msg.Commit, head) {
		return msg
	}
	note := HeadMoved(msg.Commit, head, what, "`/perfbot run`")
	if msg.State == answer.StateQueued || msg.State == answer.StatePending {
		// Not measured yet: the run measures the commit it was approved for.
		note = "this run measures " + strings.TrimPrefix(note, "measured ")
	}
	return AddNote(msg, f, "> "+note)
}
