package config

import (
	"strings"
	"testing"
)

// TestDigestOpenAfter reads digest.open_after and refuses a count out of
// range, or not a number, at its line.
func TestDigestOpenAfter(t *testing.T) {
	c, err := Parse([]byte("digest:\n  branches: [main]\n  open_after: 3\n"), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if c.Digest.OpenAfter != 3 {
		t.Errorf("open_after = %d", c.Digest.OpenAfter)
	}
	for _, bad := range []struct{ yaml, want string }{
		{"digest:\n  open_after: -1\n", "c.yaml:2:15: digest.open_after: expected a number of tracked runs from 1 to 1000 (0: the default, 5), got -1"},
		{"digest:\n  open_after: 5000\n", "c.yaml:2:15: digest.open_after: expected a number of tracked runs from 1 to 1000"},
		{"digest:\n  open_after: three\n", "c.yaml:2:15"},
	} {
		_, err := Parse([]byte(bad.yaml), "c.yaml")
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: error %v, want %q", bad.yaml, err, bad.want)
		}
	}
}
