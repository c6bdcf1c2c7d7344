package config

import (
	"strings"
	"testing"
)

// TestUnknownFieldsNameTheirLine checks that a misspelt key anywhere in a
// suite is reported at its own line of the file.
func TestUnknownFieldsNameTheirLine(t *testing.T) {
	for _, c := range []struct {
		name, yaml, want string
	}{
		{"suite field", "suites:\n  x:\n    command: run\n    cout: 3\n", "line 4: unknown field \"cout\""},
		{"nested go option", "suites:\n  x:\n    preset: go\n    go:\n      packges: ./x\n", "line 5: unknown field \"packges\""},
		{"top level", "project:\n  repo: .\nsuits: {}\n", "line 3"},
		{"bad duration", "suites:\n  x:\n    command: run\n    timeout: soon\n", "line 4"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.yaml), "c.yaml")
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "c.yaml") {
				t.Errorf("err = %v, want it to start with the file and contain %q", err, c.want)
			}
		})
	}
}
