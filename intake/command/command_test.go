package command

import (
	"strings"
	"testing"
)

// TestParseVenues: one grammar in Markdown comments and plain-text
// messages; each finds the lines its readers see as the writer's.
func TestParseVenues(t *testing.T) {
	cases := []struct {
		name, text string
		plain      bool
		ok, bad    bool
		verb       string
		benches    string
		reason     string
	}{
		{"markdown mark", "thanks\n/perfbot false-alarm Checksum-2 -- busy runner", false, true, false, VerbFalseAlarm, "Checksum-2", "busy runner"},
		{"markdown code block", "```\n/perfbot false-alarm Checksum\n```", false, false, false, "", "", ""},
		{"gerrit mark", "Patch Set 3:\n\n/perfbot false-alarm Checksum Append -- noisy neighbour", true, true, false, VerbFalseAlarm, "Checksum,Append", "noisy neighbour"},
		{"gerrit run", "Patch Set 2: Code-Review+1\n\n  /perfbot run  ", true, true, false, VerbRun, "", ""},
		{"gerrit quoted", "Patch Set 3:\n\n> /perfbot false-alarm Checksum\n\nno", true, false, false, "", "", ""},
		{"gerrit no bench", "Patch Set 3:\n/perfbot false-alarm", true, true, true, "", "", ""},
		{"gerrit unknown", "/perfbot frobnicate", true, true, true, "", "", ""},
		{"gerrit prefix only", "/perfbotrun", true, false, false, "", "", ""},
	}
	for _, c := range cases {
		parse := ParseMarkdown
		if c.plain {
			parse = ParsePlain
		}
		cmd, ok, err := parse(c.text, "/perfbot")
		if ok != c.ok || (err != nil) != c.bad {
			t.Errorf("%s: ok %v err %v, want ok %v error %v", c.name, ok, err, c.ok, c.bad)
			continue
		}
		if !ok || err != nil {
			continue
		}
		if cmd.Verb != c.verb || strings.Join(cmd.Benches, ",") != c.benches || cmd.Reason != c.reason {
			t.Errorf("%s: %+v", c.name, cmd)
		}
	}
}
