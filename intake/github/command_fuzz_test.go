package github

import (
	"strings"
	"testing"
)

func FuzzParseCommand(f *testing.F) {
	for _, s := range []string{"/perfbot run", "/perfbot run wal base=main", "x\n/perfbot run a b base=r/1\n", "/perfbot", "/perfbot run base=$(x)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		cmd, ok, err := ParseCommand(body, "/perfbot")
		if !ok || err != nil {
			return
		}
		for _, s := range append(cmd.Suites, cmd.Base) {
			if strings.ContainsAny(s, " \t\n$`;|&'\"") || strings.HasPrefix(s, "-") {
				t.Fatalf("unsafe name %q from %q", s, body)
			}
		}
	})
}
